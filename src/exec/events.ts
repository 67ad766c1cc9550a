/**
 * `exec --output-format json`: one of these per line on stdout. The contract users script against:
 * fields are only ever added, never renamed or removed, within `v: 1`. Documented field by field in
 * docs/exec-json.md and checked against schema/exec-events.schema.json by the tests.
 */
import type { AnswerSource, Outcome, Verdict } from '../audit/event.js';

interface Base {
  readonly v: 1;
  /** ISO 8601, when exec saw it. */
  readonly time: string;
}

/** The run began: what was launched where. */
export interface StartEvent extends Base {
  readonly type: 'start';
  readonly agent: { readonly command: string; readonly args: readonly string[] };
  readonly cwd: string;
}

/** The agent answered `session/new`. `agent` is its `agentInfo` from `initialize`, when it sent one. */
export interface SessionEvent extends Base {
  readonly type: 'session';
  readonly sessionId: string;
  readonly agent?: { readonly name: string; readonly version?: string };
}

/** A chunk of the agent's reply (`agent_message_chunk`) or of its reasoning (`agent_thought_chunk`). */
export interface TextEvent extends Base {
  readonly type: 'text' | 'thought';
  readonly text: string;
}

/** A tool call began (`tool_call`) or changed (`tool_call_update`); fields as the agent sent them. */
export interface ToolCallEvent extends Base {
  readonly type: 'tool_call' | 'tool_call_update';
  readonly toolCallId: string;
  readonly title?: string;
  readonly kind?: string;
  readonly status?: 'pending' | 'in_progress' | 'completed' | 'failed';
  readonly locations?: readonly { readonly path: string; readonly line?: number }[];
}

/** The agent's plan, whole, each time it changes. */
export interface PlanEvent extends Base {
  readonly type: 'plan';
  readonly entries: readonly { readonly content: string; readonly priority: string; readonly status: string }[];
}

/**
 * One decision of the broker: a permission request, or an fs/terminal call the agent asked exec to
 * carry out. Secrets are masked as in the audit log.
 */
export interface DecisionOutputEvent extends Base {
  readonly type: 'decision';
  readonly decisionId: string;
  /** `session/request_permission`, `fs/read_text_file`, `fs/write_text_file` or `terminal/create`. */
  readonly method: string;
  readonly toolCallId?: string;
  readonly kind?: string;
  readonly title?: string;
  readonly command?: string;
  /** The policy's own verdict, before any fallback. */
  readonly policyDecision?: 'allow' | 'deny' | 'ask';
  readonly decision: Verdict;
  readonly outcome: Outcome;
  /** `fallback` when an `ask` got the policy's non_interactive answer. */
  readonly source: AnswerSource;
  /** The deciding rule's id, when a rule decided. */
  readonly rule?: string;
  readonly reason?: string;
}

/** The turn ended (`session/prompt` answered). */
export interface StopEvent extends Base {
  readonly type: 'stop';
  readonly stopReason: string;
}

/** Something went wrong with the run itself (not a decision): start failure, auth, timeout, turn error. */
export interface ErrorEvent extends Base {
  readonly type: 'error';
  readonly code: ExecErrorCode;
  readonly message: string;
}

export type ExecErrorCode = 'agent_start_failed' | 'auth_required' | 'turn_failed' | 'timed_out' | 'connection_closed';

/** Always the last line: what happened, in numbers, and how exec exits. */
export interface SummaryEvent extends Base {
  readonly type: 'summary';
  readonly exitCode: number;
  readonly stopReason: string | null;
  readonly durationMs: number;
  readonly counts: {
    readonly toolCalls: number;
    readonly allowed: number;
    readonly denied: number;
    /** `ask` decisions answered by the non_interactive fallback (or a timeout). */
    readonly fellBack: number;
    /** Answered by a human through the approvals daemon. */
    readonly answeredByHuman: number;
  };
}

export type ExecEvent =
  | StartEvent | SessionEvent | TextEvent | ToolCallEvent | PlanEvent | DecisionOutputEvent | StopEvent | ErrorEvent | SummaryEvent;

/** `exec`'s exit codes (documented in the README and `acp-broker help exec`). */
export const EXEC_EXIT = {
  success: 0,
  /** The turn ended other than `end_turn` (refusal, max tokens, cancelled) or failed. */
  turnFailed: 1,
  /** Usage or policy error (as every command). */
  usage: 2,
  /** `--fail-on-deny` and a request was denied or fell back. */
  denied: 4,
  /** `--max-duration` was reached. */
  timedOut: 124,
  /** The agent could not be started, or needs authentication exec cannot give it. */
  agentCannotStart: 127,
} as const;
