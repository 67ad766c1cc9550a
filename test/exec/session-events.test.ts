import { describe, expect, it } from 'vitest';
import type { DecisionEvent } from '../../src/audit/event.js';
import { exitCodeOf } from '../../src/exec/outcome.js';
import { decisionFromAudit, eventsFromUpdate } from '../../src/exec/session-events.js';

// What exec sees today (audit events, ACP session/update notifications, the client's result) as ExecEvents.
const T = '2026-12-01T18:00:00.000Z';
const auditDecision: DecisionEvent = {
  v: 1, event: 'decision', time: T, decisionId: 'd-1', method: 'session/request_permission', sessionId: 's', agent: 'a',
  toolCallId: 'call_1', kind: 'execute', title: 'curl', command: 'curl -H "Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789" x',
  items: [{ item: 'curl', decision: 'ask', rules: ['network'] }], policyDecision: 'ask', decision: 'deny', outcome: 'denied',
  source: { type: 'fallback', fallback: 'deny' }, reason: 'rule network asks before curl', optionId: 'reject', input: { command: 'curl' }, latencyMs: 0.3,
};

describe('exec events from what exec sees today', () => {
  it('an audit decision: masked as in the audit log, the asking rule named for a fallback, audit-only fields left out', () => {
    const event = decisionFromAudit(auditDecision)!;
    expect(event).toEqual({
      v: 1, type: 'decision', time: T, decisionId: 'd-1', method: 'session/request_permission', toolCallId: 'call_1', kind: 'execute', title: 'curl',
      command: event.command, policyDecision: 'ask', decision: 'deny', outcome: 'denied', source: { type: 'fallback', fallback: 'deny' },
      rule: 'network', reason: 'rule network asks before curl',
    });
    expect(event.command).not.toContain('sk-ant-api03');
    expect(event.command).toContain('***');
  });

  it('a rule decision names its rule; audit events that are no decision make none', () => {
    expect(decisionFromAudit({ ...auditDecision, source: { type: 'rule', ruleId: 'tests', layer: 'user' } })?.rule).toBe('tests');
    expect(decisionFromAudit({ v: 1, event: 'problem', time: T, reason: 'r', message: 'm' })).toBeUndefined();
  });

  it('session/update kinds become text, thought, tool-call and plan events; others and malformed ones none', () => {
    expect(eventsFromUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } }, T)).toEqual([{ v: 1, type: 'text', time: T, text: 'hi' }]);
    expect(eventsFromUpdate({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hm' } }, T)).toEqual([{ v: 1, type: 'thought', time: T, text: 'hm' }]);
    expect(eventsFromUpdate({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/a.ts', line: 2 }, { nope: 1 }], rawInput: {} }, T))
      .toEqual([{ v: 1, type: 'tool_call', time: T, toolCallId: 'c', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/a.ts', line: 2 }] }]);
    expect(eventsFromUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'weird' }, T)).toEqual([{ v: 1, type: 'tool_call_update', time: T, toolCallId: 'c' }]);
    expect(eventsFromUpdate({ sessionUpdate: 'plan', entries: [{ content: 'x', priority: 'high', status: 'pending' }, 7] }, T))
      .toEqual([{ v: 1, type: 'plan', time: T, entries: [{ content: 'x', priority: 'high', status: 'pending' }] }]);
    for (const bad of [null, 'x', { sessionUpdate: 'available_commands_update' }, { sessionUpdate: 'tool_call' }, { sessionUpdate: 'agent_message_chunk', content: { type: 'image' } }]) {
      expect(eventsFromUpdate(bad, T)).toEqual([]);
    }
  });

  it('a tool call title is masked like the decision that may quote it', () => {
    const [event] = eventsFromUpdate({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, T);
    expect((event as { title: string }).title).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('how a run ended gives its exit code: end_turn 0, another stop reason or a failed turn 1, timed out 124, no agent 127', () => {
    expect(exitCodeOf({ type: 'stopped', stopReason: 'end_turn' })).toBe(0);
    expect(exitCodeOf({ type: 'stopped', stopReason: 'refusal' })).toBe(1);
    expect(exitCodeOf({ type: 'failed', code: 'turn_failed', message: '' })).toBe(1);
    expect(exitCodeOf({ type: 'failed', code: 'connection_closed', message: '' })).toBe(1);
    expect(exitCodeOf({ type: 'failed', code: 'timed_out', message: '' })).toBe(124);
    expect(exitCodeOf({ type: 'failed', code: 'agent_start_failed', message: '' })).toBe(127);
    expect(exitCodeOf({ type: 'failed', code: 'auth_required', message: '' })).toBe(127);
  });
});
