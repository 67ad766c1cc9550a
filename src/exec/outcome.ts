/** How a run ended, as far as exec's client can tell, and the exit code that gives (EXEC_EXIT in events.ts). Pure. */
import { assertNever } from '../core/decision.js';
import { EXEC_EXIT, type ExecErrorCode } from './events.js';

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
    default: return assertNever(outcome.code, 'exec error code');
  }
}
