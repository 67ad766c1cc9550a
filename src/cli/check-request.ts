import { isAbsolute, join, relative, resolve } from 'node:path';
import { assertNever } from '../core/decision.js';
import { BrokerError } from '../core/errors.js';

/**
 * The permission request `check -- CMD` and `check --kind K --path P` decide: built as the named
 * agent sends it (shapes captured from claude-code-acp 0.16.2, gemini-cli 0.61.0 and codex-acp
 * 0.16.0 in /work/shared/acp/captures and test/broker/agent-shapes.test.ts), or as a plain ACP
 * request. Pure: no file system, no clock.
 */

export type CheckAgent = 'claude' | 'gemini' | 'codex';
const AGENTS: readonly CheckAgent[] = ['claude', 'gemini', 'codex'];

/** What the user asked about. */
export type CheckAction =
  | { readonly kind: 'execute'; readonly line: string }
  | { readonly kind: 'read' | 'edit' | 'delete'; readonly paths: readonly string[] }
  | { readonly kind: 'move'; readonly from: string; readonly to: string }
  | { readonly kind: 'fetch'; readonly url: string };

export interface SyntheticRequest {
  readonly toolCall: Record<string, unknown>;
  readonly options: readonly { optionId: string; name: string; kind: string }[];
  /** The agent's name as it reports it in `initialize` (rules may match on it). */
  readonly agentName: string | undefined;
}

/** The name each agent gives itself in `initialize` (`agentInfo.name`), as captured. */
const AGENT_NAMES: Record<CheckAgent, string> = { claude: '@zed-industries/claude-code-acp', gemini: 'gemini-cli', codex: 'codex-acp' };

/** The options each agent offers with a request, as captured. */
const AGENT_OPTIONS: Record<CheckAgent | 'plain', SyntheticRequest['options']> = {
  claude: [{ optionId: 'allow_always', name: 'Always Allow', kind: 'allow_always' }, { optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
  gemini: [{ optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' }, { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' }, { optionId: 'cancel', name: 'Reject', kind: 'reject_once' }],
  codex: [{ optionId: 'approved', name: 'Yes, proceed', kind: 'allow_once' }, { optionId: 'abort', name: 'No, and tell Codex what to do differently', kind: 'reject_once' }],
  plain: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
};

export function parseCheckAgent(value: string | undefined): CheckAgent | undefined {
  if (value === undefined) return undefined;
  if ((AGENTS as readonly string[]).includes(value)) return value as CheckAgent;
  throw new BrokerError('usage', `--agent takes ${AGENTS.join(', ')}, not \`${value}\``);
}

/** The words after `--` as one shell line: one word is a line already; several are quoted as the shell gave them. */
export function shellLineOf(words: readonly string[]): string {
  return words.length === 1 ? words[0]! : words.map(shellQuote).join(' ');
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export function buildRequest(action: CheckAction, agent: CheckAgent | undefined, cwd: string, home: string): SyntheticRequest {
  const absolute = (p: string) => (p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : isAbsolute(p) ? p : resolve(cwd, p));
  const toolCall = agent === undefined ? plainShape(action) : agentShape(agent, action, cwd, absolute);
  return { toolCall: { toolCallId: 'check-1', status: 'pending', ...toolCall }, options: AGENT_OPTIONS[agent ?? 'plain'], agentName: agent && AGENT_NAMES[agent] };
}

/** A request as the ACP schema describes it, no agent's habits: kind, title, rawInput, locations. */
function plainShape(action: CheckAction): Record<string, unknown> {
  switch (action.kind) {
    case 'execute': return { kind: 'execute', title: action.line, rawInput: { command: action.line } };
    case 'read': case 'edit': case 'delete':
      return { kind: action.kind, title: `${action.kind} ${action.paths.join(', ')}`, locations: action.paths.map((path) => ({ path })) };
    case 'move': return { kind: 'move', title: `move ${action.from} to ${action.to}`, rawInput: { source: action.from, destination: action.to } };
    case 'fetch': return { kind: 'fetch', title: `fetch ${action.url}`, rawInput: { url: action.url } };
    default: return assertNever(action, 'check action');
  }
}

function agentShape(agent: CheckAgent, action: CheckAction, cwd: string, absolute: (p: string) => string): Record<string, unknown> {
  switch (agent) {
    case 'claude': return claudeShape(action, absolute);
    case 'gemini': return geminiShape(action, cwd, absolute);
    case 'codex': return codexShape(action, cwd, absolute);
    default: return assertNever(agent, 'agent');
  }
}

/** A kind the agent never asks about (it uses its shell tool instead, or does not ask): refused, not guessed. */
function notAsked(agent: CheckAgent, kind: string): BrokerError {
  return new BrokerError('usage', `${AGENT_NAMES[agent]} sends no ${kind} permission request (it does not ask for that, or runs a shell command): try check --agent ${agent} -- COMMAND`);
}

function onePath(agent: string, paths: readonly string[]): string {
  if (paths.length !== 1) throw new BrokerError('usage', `${agent} asks about one file at a time: give one --path`);
  return paths[0]!;
}

/** claude-code-acp: the merged tool_call update and request (kind and tool name come with the update). */
function claudeShape(action: CheckAction, absolute: (p: string) => string): Record<string, unknown> {
  const tool = (toolName: string) => ({ _meta: { claudeCode: { toolName } } });
  switch (action.kind) {
    case 'execute': return { ...tool('Bash'), kind: 'execute', title: `\`${action.line}\``, rawInput: { command: action.line }, content: [] };
    case 'read': {
      const path = absolute(onePath('claude-code-acp', action.paths));
      return { ...tool('Read'), kind: 'read', title: `Read ${path}`, rawInput: { file_path: path }, locations: [{ path }] };
    }
    case 'edit': {
      const path = absolute(onePath('claude-code-acp', action.paths));
      return { ...tool('Write'), kind: 'edit', title: `Write ${path}`, rawInput: { file_path: path, content: '' }, content: [{ type: 'diff', path, oldText: null, newText: '' }], locations: [{ path }] };
    }
    case 'fetch': return { ...tool('WebFetch'), kind: 'fetch', title: `Fetch ${action.url}`, rawInput: { url: action.url, prompt: '' } };
    case 'delete': case 'move': throw notAsked('claude', action.kind);
    default: return assertNever(action, 'check action');
  }
}

/** gemini-cli: everything is in the request; the shell's directory only in the content text. */
function geminiShape(action: CheckAction, cwd: string, absolute: (p: string) => string): Record<string, unknown> {
  switch (action.kind) {
    case 'execute':
      return { kind: 'execute', title: action.line, locations: [], content: [{ type: 'content', content: { type: 'text', text: `[current working directory ${cwd}]` } }] };
    case 'edit': {
      const path = absolute(onePath('gemini-cli', action.paths));
      return { kind: 'edit', title: `Writing to ${relative(cwd, path) || path}`, content: [{ type: 'diff', path, oldText: '', newText: '' }], locations: [{ path }] };
    }
    case 'read': case 'delete': case 'move': case 'fetch': throw notAsked('gemini', action.kind);
    default: return assertNever(action, 'check action');
  }
}

/** codex-acp: the command as an argv through bash -lc, with its cwd; edits as apply_patch changes. */
function codexShape(action: CheckAction, cwd: string, absolute: (p: string) => string): Record<string, unknown> {
  switch (action.kind) {
    case 'execute': {
      const argv = ['/bin/bash', '-lc', action.line];
      return {
        kind: 'execute', title: action.line, content: [{ type: 'content', content: { type: 'text', text: `Proposed Amendment: ${argv.join('\n')}` } }],
        rawInput: { call_id: 'check-1', command: argv, cwd, parsed_cmd: [{ type: 'unknown', cmd: action.line }] },
      };
    }
    case 'edit': {
      const paths = action.paths.map(absolute);
      return {
        kind: 'edit', title: `Edit ${paths.join(', ')}`, locations: paths.map((path) => ({ path })),
        content: paths.map((path) => ({ type: 'diff', path, newText: '' })),
        rawInput: { call_id: 'check-1', changes: Object.fromEntries(paths.map((path) => [path, { type: 'update', unified_diff: '' }])) },
      };
    }
    case 'read': case 'delete': case 'move': case 'fetch': throw notAsked('codex', action.kind);
    default: return assertNever(action, 'check action');
  }
}
