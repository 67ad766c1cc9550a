import type { DecisionOutputEvent, ExecEvent } from '../../../src/exec/events.js';

// Events as a run core sends them, for the output tests: one of every type, every optional field set.
const time = '2026-12-01T18:00:00.000Z';

export const start: ExecEvent = { v: 1, type: 'start', time, agent: { command: 'claude-code-acp', args: ['--verbose'] }, cwd: '/work/repo' };
export const session: ExecEvent = { v: 1, type: 'session', time, sessionId: 'sess-1', agent: { name: 'claude-code', version: '0.16.2' } };
export const text = (t: string): ExecEvent => ({ v: 1, type: 'text', time, text: t });
export const thought: ExecEvent = { v: 1, type: 'thought', time, text: 'Let me look at the tests.' };
export const toolCall = (id: string, title: string, kind = 'execute'): ExecEvent =>
  ({ v: 1, type: 'tool_call', time, toolCallId: id, title, kind, status: 'pending', locations: [{ path: '/work/repo/src/a.ts', line: 3 }] });
export const toolDone = (id: string, status: 'completed' | 'failed' = 'completed'): ExecEvent => ({ v: 1, type: 'tool_call_update', time, toolCallId: id, status });
export const plan: ExecEvent = { v: 1, type: 'plan', time, entries: [{ content: 'Run the tests', priority: 'high', status: 'pending' }] };
export const stop: ExecEvent = { v: 1, type: 'stop', time, stopReason: 'end_turn' };
export const error: ExecEvent = { v: 1, type: 'error', time, code: 'turn_failed', message: 'session/prompt failed: {"code":-32603}' };

export function allowed(command: string, rule = 'tests'): DecisionOutputEvent {
  return {
    v: 1, type: 'decision', time, decisionId: `d-${command}`, method: 'session/request_permission', toolCallId: 'call_1', kind: 'execute',
    title: command, command, policyDecision: 'allow', decision: 'allow', outcome: 'allowed',
    source: { type: 'rule', ruleId: rule, layer: 'user' }, rule, reason: `rule ${rule} allows ${command}`,
  };
}

export function denied(command: string, rule = 'destructive'): DecisionOutputEvent {
  return {
    v: 1, type: 'decision', time, decisionId: `d-${command}`, method: 'session/request_permission', toolCallId: 'call_2', kind: 'execute',
    title: command, command, policyDecision: 'deny', decision: 'deny', outcome: 'denied',
    source: { type: 'rule', ruleId: rule, layer: 'user' }, rule, reason: `rule ${rule} denies ${command}`,
  };
}

export function fellBack(path: string, rule = 'edits'): DecisionOutputEvent {
  return {
    v: 1, type: 'decision', time, decisionId: `d-${path}`, method: 'fs/write_text_file', kind: 'edit', title: `Write ${path}`,
    policyDecision: 'ask', decision: 'deny', outcome: 'denied', source: { type: 'fallback', fallback: 'deny' }, rule,
    reason: `rule ${rule} asks before writing ${path}`,
  };
}
