import { describe, expect, it } from 'vitest';
import { createMemoryGrantStore } from '../../src/grants/store.js';
import { harness, policyFrom } from '../helpers/harness.js';

const ALWAYS_ONLY = [
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'never', name: 'Never', kind: 'reject_always' },
];
const request = (id: number) => ({
  jsonrpc: '2.0', id, method: 'session/request_permission',
  params: { sessionId: 's', options: ALWAYS_ONLY, toolCall: { toolCallId: `t${id}`, kind: 'execute', rawInput: { command: 'make deploy' } } },
});

describe('a human\'s "always allow" for an agent without a one-shot allow', () => {
  it('without a grants store: the agent gets the allow the human chose, not "cancelled"', async () => {
    const h = await harness(await policyFrom('version: 1\ndefault: ask\nrules: []\n'));
    h.agent(request(1));
    h.client({ jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'selected', optionId: 'always' } } });
    const got = h.toAgent.map((l) => JSON.parse(l) as { id: number; result?: { outcome: unknown } }).filter((m) => m.id === 1);
    expect(got.map((m) => m.result?.outcome)).toEqual([{ outcome: 'selected', optionId: 'always' }]);
  });

  it('with a grants store: the broker\'s "always allow" reaches the agent as an allow, and the grant then applies', async () => {
    const h = await harness(await policyFrom('version: 1\ndefault: ask\nrules: []\n'), { grants: createMemoryGrantStore() });
    h.client({ jsonrpc: '2.0', id: 'new', method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 'new', result: { sessionId: 's' } });
    h.agent(request(1));
    const shown = JSON.parse(h.toClient.at(-1)!) as { params: { options: { optionId: string; kind: string }[] } };
    const always = shown.params.options.find((o) => o.kind === 'allow_always')!;
    h.client({ jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'selected', optionId: always.optionId } } });
    const first = h.toAgent.map((l) => JSON.parse(l) as { id: number; result?: { outcome: { outcome: string } } }).filter((m) => m.id === 1);
    expect(first.map((m) => m.result?.outcome.outcome)).toEqual(['selected']);
    h.agent(request(2));
    expect(h.toClient.some((l) => l.includes('"id":2'))).toBe(false);
  });
});
