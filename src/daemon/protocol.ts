/**
 * The approvals socket protocol, version 1 (docs/approvals-protocol.md): JSON-RPC 2.0, one message
 * a line. Names, shapes and the checks the daemon applies to what a peer sends: a peer is trusted
 * to be the same user, never to be well-formed.
 */
import type { AnswerChannel, ApprovalOption, ApprovalRequest, Withdrawal } from '../escalation/channel.js';
import type { AnswerResult, PendingApproval } from './approvals-view.js';
import { isDecision } from '../core/decision.js';

export const PROTOCOL_VERSION = 1;

/** A frame (one line) longer than this is answered with an error and never parsed. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

export const METHODS = {
  hello: 'hello',
  open: 'approval/open',
  withdraw: 'approval/withdraw',
  answered: 'approval/answered',
  returned: 'approval/returned',
  list: 'approvals/list',
  answer: 'approvals/answer',
  status: 'daemon/status',
  stop: 'daemon/stop',
} as const;

/** Application error codes (JSON-RPC reserves -32768..-32000 for itself; these sit just above). */
export const DAEMON_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  frameTooLarge: -31001,
  helloFirst: -31002,
  unsupportedProtocol: -31003,
  duplicateApproval: -31004,
  tooMany: -31005,
} as const;

export type PeerRole = 'broker' | 'control';

export interface HelloParams {
  readonly protocol: number;
  readonly role: PeerRole;
  readonly pid: number | undefined;
  readonly agent: string | undefined;
}

export interface HelloResult {
  readonly protocol: number;
  readonly pid: number;
  readonly inbox: string | null;
}

export type WireAnswer = { readonly type: 'selected'; readonly optionId: string } | { readonly type: 'cancelled' };

export interface AnsweredParams {
  readonly approvalId: string;
  readonly answer: WireAnswer;
  readonly via: Exclude<AnswerChannel, 'client'>;
}

export interface ReturnedParams {
  readonly approvalId: string;
  readonly reason: 'daemon_stopping';
}

export interface WithdrawParams {
  readonly approvalId: string;
  readonly reason: Withdrawal['type'];
  /** Where the winning answer came from, for reason `answered`. */
  readonly via?: AnswerChannel;
}

export interface DaemonStatus {
  readonly protocol: number;
  readonly pid: number;
  readonly socket: string;
  readonly inbox: string | null;
  readonly startedAt: string;
  readonly brokers: number;
  readonly pending: number;
  /** Heap in use, in bytes (after a collection when node runs with --expose-gc). */
  readonly heapUsed: number;
  readonly rss: number;
}

export interface ListResult {
  readonly approvals: readonly PendingApproval[];
}

export type AnswerCallResult = AnswerResult;

/** The reason a value is not what `what` must be, or undefined when it is. */
type Check<T> = (value: unknown) => T | string;

const CHANNELS: readonly string[] = ['client', 'desktop', 'web', 'terminal'];
const WITHDRAWALS: readonly string[] = ['answered', 'cancelled', 'timeout', 'shutdown'];

export const checkHello: Check<HelloParams> = (value) => {
  const o = record(value);
  if (!o) return 'params must be an object';
  if (typeof o.protocol !== 'number') return 'protocol must be a number';
  if (o.role !== 'broker' && o.role !== 'control') return "role must be 'broker' or 'control'";
  if (o.pid !== undefined && !Number.isSafeInteger(o.pid)) return 'pid must be an integer';
  if (o.agent !== undefined && o.agent !== null && typeof o.agent !== 'string') return 'agent must be a string';
  return { protocol: o.protocol, role: o.role, pid: o.pid as number | undefined, agent: (o.agent as string | null | undefined) ?? undefined };
};

export const checkWithdraw: Check<WithdrawParams> = (value) => {
  const o = record(value);
  if (!o || typeof o.approvalId !== 'string') return 'approvalId must be a string';
  if (typeof o.reason !== 'string' || !WITHDRAWALS.includes(o.reason)) return `reason must be one of ${WITHDRAWALS.join(', ')}`;
  if (o.via !== undefined && (typeof o.via !== 'string' || !CHANNELS.includes(o.via))) return `via must be one of ${CHANNELS.join(', ')}`;
  return { approvalId: o.approvalId, reason: o.reason as Withdrawal['type'], via: o.via as AnswerChannel | undefined };
};

export const checkAnswer: Check<{ id: string; optionId: string }> = (value) => {
  const o = record(value);
  if (!o || typeof o.id !== 'string' || typeof o.optionId !== 'string') return 'id and optionId must be strings';
  return { id: o.id, optionId: o.optionId };
};

/** The daemon-to-broker answer, checked on the broker side. */
export const checkAnswered: Check<AnsweredParams> = (value) => {
  const o = record(value);
  if (!o || typeof o.approvalId !== 'string') return 'approvalId must be a string';
  if (o.via !== 'desktop' && o.via !== 'web' && o.via !== 'terminal') return "via must be 'desktop', 'web' or 'terminal'";
  const answer = record(o.answer);
  if (answer?.type === 'selected' && typeof answer.optionId === 'string') {
    return { approvalId: o.approvalId, answer: { type: 'selected', optionId: answer.optionId }, via: o.via };
  }
  if (answer?.type === 'cancelled') return { approvalId: o.approvalId, answer: { type: 'cancelled' }, via: o.via };
  return "answer must be {type:'selected', optionId} or {type:'cancelled'}";
};

/** An ApprovalRequest, checked field by field and rebuilt: nothing unchecked reaches a front end. */
export const checkApprovalRequest: Check<ApprovalRequest> = (value) => {
  const o = record(record(value)?.request);
  if (!o) return 'request must be an object';
  if (typeof o.approvalId !== 'string' || o.approvalId === '' || o.approvalId.length > 200) return 'request.approvalId must be a non-empty string';
  for (const key of ['workspace', 'sessionId', 'kind', 'reason'] as const) {
    if (typeof o[key] !== 'string') return `request.${key} must be a string`;
  }
  for (const key of ['agent', 'title', 'command', 'deadline'] as const) {
    if (o[key] !== undefined && o[key] !== null && typeof o[key] !== 'string') return `request.${key} must be a string`;
  }
  if (typeof o.deadline === 'string' && Number.isNaN(Date.parse(o.deadline))) return 'request.deadline must be an ISO 8601 time';
  const paths = list(o.paths, (p) => (typeof p.path === 'string' && typeof p.access === 'string' ? { path: p.path, access: p.access } : undefined));
  if (!paths) return 'request.paths must be a list of {path, access}';
  const items = list(o.items, (i) => {
    const rules = Array.isArray(i.rules) && i.rules.every((r) => typeof r === 'string') ? (i.rules as string[]) : undefined;
    if (typeof i.item !== 'string' || !rules || (i.decision !== null && !isDecision(i.decision))) return undefined;
    return { item: i.item, decision: i.decision, rules };
  });
  if (!items) return 'request.items must be a list of {item, decision, rules}';
  const diffs = list(o.diffs, (d) => (typeof d.path === 'string' && typeof d.newText === 'string' && (d.oldText === null || typeof d.oldText === 'string')
    ? { path: d.path, oldText: d.oldText, newText: d.newText } : undefined));
  if (!diffs) return 'request.diffs must be a list of {path, oldText, newText}';
  const options = list(o.options, (p): ApprovalOption | undefined => {
    if (typeof p.optionId !== 'string' || typeof p.kind !== 'string' || typeof p.name !== 'string') return undefined;
    if (p.covers !== undefined && typeof p.covers !== 'string') return undefined;
    return p.covers === undefined ? { optionId: p.optionId, name: p.name, kind: p.kind } : { optionId: p.optionId, name: p.name, kind: p.kind, covers: p.covers };
  });
  if (!options || options.length === 0) return 'request.options must be a non-empty list of {optionId, name, kind}';
  return {
    approvalId: o.approvalId,
    agent: optionalString(o.agent),
    workspace: o.workspace as string,
    sessionId: o.sessionId as string,
    kind: o.kind as string,
    title: optionalString(o.title),
    command: optionalString(o.command),
    paths,
    items,
    reason: o.reason as string,
    diffs,
    options,
    deadline: optionalString(o.deadline),
  };
};

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function list<T>(value: unknown, each: (entry: Record<string, unknown>) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: T[] = [];
  for (const entry of value) {
    const o = record(entry);
    const checked = o ? each(o) : undefined;
    if (checked === undefined) return undefined;
    out.push(checked);
  }
  return out;
}
