import { describe, expect, it } from 'vitest';
import { CLAUDE_OPTIONS, harness, policyFrom } from '../helpers/harness.js';

const POLICY = 'version: 1\ndefault: ask\nrules: []\n';

describe('the editor leaves while requests are open', () => {
  it('requests held for the engine: the permission request is cancelled, the fs call refused, each answered once', async () => {
    const h = await harness(await policyFrom(POLICY), { decisionsReady: new Promise(() => {}) });
    h.agent({ jsonrpc: '2.0', id: 1, method: 'session/request_permission', params: { sessionId: 's', toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'ls' } }, options: CLAUDE_OPTIONS } });
    h.agent({ jsonrpc: '2.0', id: 2, method: 'fs/write_text_file', params: { sessionId: 's', path: '/home/dev/project/a.txt', content: 'x' } });
    expect(h.toAgent).toEqual([]);
    h.broker.clientGone();
    h.broker.clientGone();
    const answers = h.toAgent.map((l) => JSON.parse(l) as { id: number; result?: unknown; error?: { code: number; message: string } });
    expect(answers).toHaveLength(2);
    expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'cancelled' } } });
    expect(answers[1]!.id).toBe(2);
    expect(answers[1]!.error!.message).toMatch(/fs\/write_text_file denied by acp-broker policy: the editor disconnected/);
    expect(h.toClient).toEqual([]);
  });

  it('an escalated request is cancelled and audited as such; an answer still arriving is not relayed', async () => {
    const h = await harness(await policyFrom(POLICY));
    h.agent({ jsonrpc: '2.0', id: 7, method: 'session/request_permission', params: { sessionId: 's', toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'make deploy' } }, options: CLAUDE_OPTIONS } });
    expect(h.toClient).toHaveLength(1);
    h.broker.clientGone();
    expect(h.answers().get(7)).toEqual({ outcome: { outcome: 'cancelled' } });
    expect(h.audit.at(-1)).toMatchObject({ decision: 'cancelled', outcome: 'cancelled', source: { type: 'cancelled', by: 'client-gone' } });
    const before = h.toAgent.length;
    h.client({ jsonrpc: '2.0', id: 7, result: { outcome: { outcome: 'selected', optionId: 'allow' } } });
    expect(h.toAgent).toHaveLength(before);
  });
});
