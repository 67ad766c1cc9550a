import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/event.js';
import { Broker } from '../../src/broker/broker.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { CLAUDE_OPTIONS, policyFrom, shell } from '../helpers/harness.js';

// Only `npm test` may run; everything else is denied by default.
const POLICY = 'version: 1\ndefault: deny\nrules:\n  - { id: tests, decision: allow, match: { kind: execute, command: ["npm test"] } }\n';

/** A broker whose audit work is queued by hand, as the relay queues it until the message in hand is handled. */
async function deferredBroker(decisionsReady?: Promise<unknown>) {
  const toAgent: string[] = [];
  const audit: AuditRecord[] = [];
  const queued: (() => void)[] = [];
  let n = 0;
  const broker = new Broker({
    policyFor: () => policy, shell: await shell(), home: '/home/dev', fallbackWorkspace: '/home/dev/project', canonicalize: lexicalOnly, fileExists: () => false,
    nonInteractive: true, audit: { write: (e) => audit.push(e), close: async () => {} }, deferAudit: (work) => queued.push(work),
    clock: () => new Date('2026-12-01T00:00:00Z'), newDecisionId: () => `d${++n}`, log: () => {},
    toAgent: (b) => toAgent.push(b.toString()), toClient: () => {}, ...(decisionsReady ? { decisionsReady } : {}),
  });
  const policy = await policyFrom(POLICY);
  const agent = (m: object) => broker.fromAgent(Buffer.from(`${JSON.stringify(m)}\n`));
  // The session starts in the project (a session the broker never saw start has no workspace).
  broker.fromClient(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'new', method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } })}\n`));
  toAgent.length = 0;
  const runQueued = () => queued.splice(0).forEach((work) => work());
  return { broker, toAgent, audit, agent, runQueued };
}

const request = (id: number, command: string) => ({ jsonrpc: '2.0', id, method: 'session/request_permission',
  params: { sessionId: 's', options: CLAUDE_OPTIONS, toolCall: { toolCallId: `t${id}`, kind: 'execute', rawInput: { command } } } });

describe('audit work deferred until the message is handled', () => {
  it('answers the agent first; the event, built later, is the same and keeps its order', async () => {
    const b = await deferredBroker();
    b.agent({ jsonrpc: '2.0', id: 'new', result: { sessionId: 's' } });
    b.agent(request(1, 'npm test'));
    b.agent(request(2, 'rm -rf build'));
    // An unprompted tool call finishing: its event is queued after the two decisions.
    b.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'x', kind: 'edit', title: 'Edit a', status: 'completed' } } });
    expect(b.toAgent.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
    expect(b.audit).toEqual([]);
    b.runQueued();
    expect(b.audit.map((e) => [e.event, e.decisionId, e.toolCallId, e.decision])).toEqual([
      ['decision', 'd1', 't1', 'allow'], ['decision', 'd2', 't2', 'deny'], ['unprompted', undefined, 'x', undefined],
    ]);
    expect(b.audit[0]).toMatchObject({ time: '2026-12-01T00:00:00.000Z', source: { type: 'rule', ruleId: 'tests' }, command: 'npm test' });
    expect(b.audit[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('a held request cancelled when the editor leaves: the agent is answered at once, the event follows', async () => {
    const b = await deferredBroker(new Promise(() => {}));
    b.agent(request(3, 'npm test'));
    expect(b.toAgent).toEqual([]);
    b.broker.clientGone();
    expect(b.toAgent.map((l) => JSON.parse(l).result)).toEqual([{ outcome: { outcome: 'cancelled' } }]);
    expect(b.audit).toEqual([]);
    b.runQueued();
    expect(b.audit).toMatchObject([{ decision: 'cancelled', source: { type: 'cancelled', by: 'client-gone' } }]);
  });
});
