import { describe, expect, it } from 'vitest';
import { mergeToolCall } from '../../src/facts/tool-call.js';

describe('merged tool-call state', () => {
  it('later fields win, absent ones keep earlier values, null replaces', () => {
    const announced = mergeToolCall(undefined, { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Run', kind: 'execute', rawInput: { command: 'ls' } });
    const updated = mergeToolCall(announced, { toolCallId: 't1', status: 'in_progress', title: null });
    expect(updated).toMatchObject({ toolCallId: 't1', title: null, kind: 'execute', status: 'in_progress', rawInput: { command: 'ls' } });
  });

  it('an empty rawInput does not erase a real one, but is kept when there is none', () => {
    const first = mergeToolCall(undefined, { toolCallId: 't', rawInput: {} });
    expect(first.rawInput).toEqual({});
    const real = mergeToolCall(first, { toolCallId: 't', rawInput: { file_path: '/w/a' } });
    expect(mergeToolCall(real, { toolCallId: 't', rawInput: {} }).rawInput).toEqual({ file_path: '/w/a' });
  });

  it('has one layout whatever keys the agent sends, in whatever order', () => {
    const claude = mergeToolCall(undefined, { toolCallId: 'a', rawInput: { command: 'ls' }, title: '`ls`' });
    const gemini = mergeToolCall(undefined, { kind: 'execute', locations: [], content: [], title: 'ls', status: 'pending', toolCallId: 'b' });
    const custom = mergeToolCall(undefined, { toolCallId: 'c', _meta: { x: 1 }, name: 'Bash', somethingElse: 1 });
    const layout = ['toolCallId', 'title', 'name', 'kind', 'status', 'content', 'locations', 'rawInput', '_meta', 'directoryHints'];
    for (const state of [claude, gemini, custom]) expect(Object.keys(state)).toEqual(layout);
    expect(custom).not.toHaveProperty('somethingElse');
  });
});
