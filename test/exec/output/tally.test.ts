import { describe, expect, it } from 'vitest';
import type { DecisionOutputEvent, ExecEvent } from '../../../src/exec/events.js';
import { countsOf, newTally, recordEvent } from '../../../src/exec/output/tally.js';
import { allowed, denied, fellBack, toolCall, toolDone } from './sample-events.js';

// The summary's counts, from the events a run sent.
function counts(events: ExecEvent[]) {
  const tally = newTally();
  for (const e of events) recordEvent(tally, e);
  return countsOf(tally);
}

const escalated: DecisionOutputEvent = { ...allowed('npm publish'), policyDecision: 'ask', decision: 'ask', outcome: 'escalated', source: { type: 'daemon' } };
const answeredInWeb: DecisionOutputEvent = { ...escalated, decision: 'allow', outcome: 'allowed', source: { type: 'web' } };
const refusedInTerminal: DecisionOutputEvent = { ...escalated, decision: 'deny', outcome: 'denied', source: { type: 'terminal' } };
const timedOut: DecisionOutputEvent = { ...escalated, decision: 'deny', outcome: 'denied', source: { type: 'timeout', fallback: 'deny' } };

describe('exec counts', () => {
  it('tool calls are distinct ids; allowed, denied and fallen back are told apart', () => {
    expect(counts([toolCall('a', 'x'), toolDone('a'), toolCall('b', 'y'), allowed('x'), denied('y'), fellBack('/p')]))
      .toEqual({ toolCalls: 2, allowed: 1, denied: 1, fellBack: 1, answeredByHuman: 0 });
  });

  it('an escalation counts once, by its answer: a person\'s allow or deny, or a timeout as fallen back', () => {
    expect(counts([escalated, answeredInWeb])).toEqual({ toolCalls: 0, allowed: 1, denied: 0, fellBack: 0, answeredByHuman: 1 });
    expect(counts([escalated, refusedInTerminal])).toEqual({ toolCalls: 0, allowed: 0, denied: 1, fellBack: 0, answeredByHuman: 1 });
    expect(counts([escalated, timedOut])).toEqual({ toolCalls: 0, allowed: 0, denied: 0, fellBack: 1, answeredByHuman: 0 });
  });

  it('a later update keeps what the first event said unless it says otherwise', () => {
    const tally = newTally();
    for (const e of [toolCall('a', 'npm test'), toolDone('a', 'failed')]) recordEvent(tally, e);
    expect(tally.toolCalls.get('a')).toEqual({ toolCallId: 'a', title: 'npm test', kind: 'execute', status: 'failed' });
  });
});
