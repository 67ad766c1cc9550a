import type { DecisionOutputEvent, ExecEvent, SessionEvent, StartEvent, SummaryEvent, ToolCallEvent } from '../events.js';

/** One tool call as the agent last described it (a later update's fields win). */
export interface ToolCallSeen {
  readonly toolCallId: string;
  readonly title: string | undefined;
  readonly kind: string | undefined;
  readonly status: ToolCallEvent['status'];
}

/** What a run has shown so far: everything the summary, the report and the annotations are made of. */
export interface RunTally {
  start: StartEvent | undefined;
  session: SessionEvent | undefined;
  /** In the order the agent first announced them. */
  readonly toolCalls: Map<string, ToolCallSeen>;
  readonly decisions: DecisionOutputEvent[];
  stopReason: string | null;
  readonly errors: { readonly code: string; readonly message: string }[];
}

export function newTally(): RunTally {
  return { start: undefined, session: undefined, toolCalls: new Map(), decisions: [], stopReason: null, errors: [] };
}

export function recordEvent(tally: RunTally, event: ExecEvent): void {
  switch (event.type) {
    case 'start': tally.start = event; return;
    case 'session': tally.session = event; return;
    case 'tool_call':
    case 'tool_call_update': {
      const seen = tally.toolCalls.get(event.toolCallId);
      tally.toolCalls.set(event.toolCallId, {
        toolCallId: event.toolCallId,
        title: event.title ?? seen?.title,
        kind: event.kind ?? seen?.kind,
        status: event.status ?? seen?.status,
      });
      return;
    }
    case 'decision': tally.decisions.push(event); return;
    case 'stop': tally.stopReason = event.stopReason; return;
    case 'error': tally.errors.push({ code: event.code, message: event.message }); return;
    case 'text': case 'thought': case 'plan': case 'summary': return;
    default: {
      const unknown: never = event;
      throw new Error(`unhandled exec event ${JSON.stringify(unknown)}`);
    }
  }
}

/** An `ask` that nobody answered: the policy's non_interactive fallback (or an approval timeout) decided. */
export function fellBack(decision: DecisionOutputEvent): boolean {
  return decision.source.type === 'fallback' || decision.source.type === 'timeout';
}

/** What `--fail-on-deny`, the report and the annotations single out: refused by the policy, or fallen back. */
export function refused(decision: DecisionOutputEvent): boolean {
  return fellBack(decision) || decision.outcome === 'denied';
}

const HUMAN_SOURCES: ReadonlySet<string> = new Set(['client', 'daemon', 'desktop', 'web', 'terminal']);

export function countsOf(tally: RunTally): SummaryEvent['counts'] {
  let allowed = 0;
  let denied = 0;
  let fellBackCount = 0;
  let answeredByHuman = 0;
  for (const decision of tally.decisions) {
    if (decision.outcome === 'allowed') allowed++;
    if (fellBack(decision)) fellBackCount++;
    else if (decision.outcome === 'denied') denied++;
    // An escalation is recorded twice: `escalated` when offered to a person, then the answer.
    if (HUMAN_SOURCES.has(decision.source.type) && decision.outcome !== 'escalated' && decision.outcome !== 'passed') answeredByHuman++;
  }
  return { toolCalls: tally.toolCalls.size, allowed, denied, fellBack: fellBackCount, answeredByHuman };
}
