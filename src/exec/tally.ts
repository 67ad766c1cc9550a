/**
 * The numbers of a run, counted from the events as they pass, and the exit code its outcome gives
 * (EXEC_EXIT in events.ts). Pure.
 */
import { EXEC_EXIT, type ExecErrorCode, type ExecEvent, type SummaryEvent } from './events.js';

/** How the run ended, as far as the client can tell. */
export type RunOutcome =
  | { readonly type: 'stopped'; readonly stopReason: string }
  | { readonly type: 'failed'; readonly code: ExecErrorCode; readonly message: string };

export function exitCodeOf(outcome: RunOutcome): number {
  if (outcome.type === 'stopped') return outcome.stopReason === 'end_turn' ? EXEC_EXIT.success : EXEC_EXIT.turnFailed;
  switch (outcome.code) {
    case 'timed_out': return EXEC_EXIT.timedOut;
    case 'agent_start_failed':
    case 'auth_required': return EXEC_EXIT.agentCannotStart;
    case 'turn_failed':
    case 'connection_closed': return EXEC_EXIT.turnFailed;
    default: return assertNever(outcome.code);
  }
}

export class RunTally {
  private readonly toolCalls = new Set<string>();
  private allowed = 0;
  private denied = 0;
  private fellBack = 0;
  private answeredByHuman = 0;

  see(event: ExecEvent): void {
    if (event.type === 'tool_call' || event.type === 'tool_call_update') this.toolCalls.add(event.toolCallId);
    if (event.type !== 'decision') return;
    if (event.decision === 'allow') this.allowed++;
    else if (event.decision === 'deny') this.denied++;
    const source = event.source.type;
    if (source === 'fallback' || source === 'timeout') this.fellBack++;
    else if (source === 'daemon' || source === 'desktop' || source === 'web' || source === 'terminal' || source === 'client') this.answeredByHuman++;
  }

  summary(input: { time: string; exitCode: number; stopReason: string | null; durationMs: number }): SummaryEvent {
    return {
      v: 1, time: input.time, type: 'summary', exitCode: input.exitCode, stopReason: input.stopReason, durationMs: input.durationMs,
      counts: { toolCalls: this.toolCalls.size, allowed: this.allowed, denied: this.denied, fellBack: this.fellBack, answeredByHuman: this.answeredByHuman },
    };
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${String(value)}`);
}
