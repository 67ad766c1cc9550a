/**
 * What a desktop notification says about approvals, in plain words: who wants to do what, where.
 * Everything shown goes through the audit's masking; commands are cut to one readable line.
 */
import { basename } from 'node:path';
import { maskText } from '../audit/mask.js';
import type { PendingApproval } from './approvals-view.js';

export type Urgency = 'low' | 'normal' | 'critical';

export interface DesktopNotification {
  readonly title: string;
  readonly body: string;
  readonly urgency: Urgency;
}

/** How a person answers when the notification itself has no buttons. */
export interface AnswerHint {
  readonly inbox: string | null;
}

const COMMAND_CHARS = 72;
const TEXT_CHARS = 160;
const LISTED_IN_SUMMARY = 3;

export function approvalNotification(approval: PendingApproval, hint: AnswerHint): DesktopNotification {
  const request = approval.request;
  const lines = [`${sentence(approval)}.`];
  if (request.reason !== '') lines.push(`Why asked: ${oneLine(request.reason, TEXT_CHARS)}`);
  if (request.deadline !== undefined) lines.push(`Falls back at ${new Date(request.deadline).toISOString().slice(11, 19)} UTC if nobody answers.`);
  lines.push(howToAnswer(hint, approval.id));
  return { title: `${agentName(approval)} needs your approval`, body: lines.join('\n'), urgency: urgencyOf(approval) };
}

/** One notification for a burst: how many, and the first few in a line each. */
export function summaryNotification(approvals: readonly PendingApproval[], hint: AnswerHint): DesktopNotification {
  const lines = approvals.slice(0, LISTED_IN_SUMMARY).map((a) => `• ${sentence(a)}`);
  if (approvals.length > LISTED_IN_SUMMARY) lines.push(`• … and ${approvals.length - LISTED_IN_SUMMARY} more`);
  lines.push(howToAnswer(hint, undefined));
  const agents = [...new Set(approvals.map(agentName))];
  const who = agents.length === 1 ? agents[0]! : `${agents.length} agents`;
  const urgency = approvals.map(urgencyOf).reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'low' as Urgency);
  return { title: `${approvals.length} approvals waiting from ${who}`, body: lines.join('\n'), urgency };
}

/** "claude-agent-acp wants to run `npm publish` in shop-api" */
export function sentence(approval: PendingApproval): string {
  const request = approval.request;
  const where = request.workspace === '' ? '' : ` in ${basename(request.workspace) || request.workspace}`;
  return `${agentName(approval)} wants to ${action(approval)}${where}`;
}

function action(approval: PendingApproval): string {
  const { kind, command, title, paths } = approval.request;
  const named = paths.length === 0 ? undefined
    : paths.length === 1 ? oneLine(paths[0]!.path, TEXT_CHARS) : `${oneLine(paths[0]!.path, TEXT_CHARS)} and ${paths.length - 1} more`;
  const described = title === undefined ? undefined : `“${oneLine(title, COMMAND_CHARS)}”`;
  switch (kind) {
    case 'execute': {
      if (command === undefined) return `run ${described ?? 'a command'}`;
      const short = shortCommand(command);
      return `run \`${short.line}\`${short.moreLines > 0 ? ` (+${short.moreLines} more line${short.moreLines > 1 ? 's' : ''})` : ''}`;
    }
    case 'edit': return `edit ${named ?? described ?? 'a file'}`;
    case 'delete': return `delete ${named ?? described ?? 'a file'}`;
    case 'move': return `move ${named ?? described ?? 'a file'}`;
    case 'read': return `read ${named ?? described ?? 'a file'}`;
    case 'fetch': return `fetch ${described ?? 'from the network'}`;
    case 'switch_mode': return `switch mode: ${described ?? 'a new mode'}`;
    default: return described !== undefined ? `do ${described}` : `do something (${oneLine(kind, 40)})`;
  }
}

function agentName(approval: PendingApproval): string {
  const name = approval.request.agent ?? approval.broker.agent;
  return name === undefined || name === '' ? 'An agent' : oneLine(name, 60);
}

/** A shell line as one readable line: secrets masked, the first line only, cut at a word. */
function shortCommand(command: string): { readonly line: string; readonly moreLines: number } {
  const lines = maskText(command).split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return { line: cut(clean(lines[0] ?? ''), COMMAND_CHARS), moreLines: Math.max(0, lines.length - 1) };
}

function oneLine(text: string, limit: number): string {
  return cut(clean(maskText(text)).replace(/\s+/g, ' ').trim(), limit);
}

function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit - 1);
  const space = head.lastIndexOf(' ');
  return `${space > limit / 2 ? head.slice(0, space) : head}…`;
}

/** Control characters and backticks inside the command would garble the line; they never reach the notifier. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ' ').replace(/`/g, "'");
}

const RANK: Record<Urgency, number> = { low: 0, normal: 1, critical: 2 };
const RISKY_COMMAND = /\b(sudo|rm\s+-\w*[rf]|publish|push|deploy|dd|mkfs|chmod|chown|curl|wget)\b|\|\s*(ba|z)?sh\b/;

/** Reads are low; deletes, moves, mode switches and commands that publish, push or delete are critical. */
function urgencyOf(approval: PendingApproval): Urgency {
  const { kind, command } = approval.request;
  switch (kind) {
    case 'read': case 'search': case 'think': case 'fetch': return 'low';
    case 'delete': case 'move': case 'switch_mode': return 'critical';
    case 'execute': return command !== undefined && RISKY_COMMAND.test(command) ? 'critical' : 'normal';
    default: return 'normal';
  }
}

function howToAnswer(hint: AnswerHint, id: string | undefined): string {
  const terminal = id === undefined ? '`acp-broker approvals`' : `\`acp-broker approvals allow ${id}\` (or deny)`;
  return hint.inbox === null ? `Answer with ${terminal}.` : `Answer in the inbox (acp-broker inbox, ${hint.inbox}) or with ${terminal}.`;
}
