import { PassThrough } from 'node:stream';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { decisionEvent } from '../../src/audit/event.js';
import { EXEC_EXIT, type ExecEvent } from '../../src/exec/events.js';
import { runExec } from '../../src/exec/run.js';
import { decisionFromAudit } from '../../src/exec/session-events.js';
import { Terminals } from '../../src/exec/terminals.js';
import { tempDir } from '../helpers/cli.js';

// The run core alone: an in-process SDK agent on a stream pair, every ExecEvent collected.
function agentOn(streams: { fromClient: PassThrough; toClient: PassThrough }, stopReason: acp.StopReason, onDone: () => void) {
  acp.agent({ name: 'events-agent' })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'events-agent', version: '2.0.0' } }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: 's-1' }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const update = (u: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
      await update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'thinking' } });
      await update({ sessionUpdate: 'plan', entries: [{ content: 'edit a file', priority: 'high', status: 'pending' }] });
      await update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/w/a.ts', line: 3 }] });
      await update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed' });
      await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } });
      await client.notify(acp.methods.client.session.update, { sessionId: 'other-session', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'not ours' } } });
      setTimeout(onDone, 50);
      return { stopReason };
    })
    .connect(acp.ndJsonStream(Writable.toWeb(streams.toClient) as WritableStream<Uint8Array>, Readable.toWeb(streams.fromClient) as ReadableStream<Uint8Array>));
}

async function run(stopReason: acp.StopReason) {
  const fromClient = new PassThrough();
  const toClient = new PassThrough();
  let exited: (code: number) => void = () => {};
  const agentExit = new Promise<number>((resolve) => { exited = resolve; });
  agentOn({ fromClient, toClient }, stopReason, () => { toClient.end(); exited(0); });
  const events: ExecEvent[] = [];
  const emit = (e: ExecEvent) => { events.push(e); };
  const end = await runExec({
    toAgent: fromClient, fromAgent: toClient, agentCommand: ['events-agent', '--flag'], cwd: '/w', prompt: 'go', mcpServers: [],
    terminals: new Terminals({ cwd: tempDir() }), agentExit, startError: () => undefined, signalAgent: () => {}, emit,
  });
  return { code: end.exitCode, end, events };
}

describe('runExec events', () => {
  it('reports the run in order: session, thought, plan, tool calls, text, stop; returns how it ended', async () => {
    const { code, end, events } = await run('end_turn');
    expect(code).toBe(EXEC_EXIT.success);
    const shapes = events.map(({ time, ...rest }) => { expect(Date.parse(time)).not.toBeNaN(); return rest; });
    expect(shapes).toEqual([
      { v: 1, type: 'session', sessionId: 's-1', agent: { name: 'events-agent', version: '2.0.0' } },
      { v: 1, type: 'thought', text: 'thinking' },
      { v: 1, type: 'plan', entries: [{ content: 'edit a file', priority: 'high', status: 'pending' }] },
      { v: 1, type: 'tool_call', toolCallId: 'c1', title: 'Edit a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/w/a.ts', line: 3 }] },
      { v: 1, type: 'tool_call_update', toolCallId: 'c1', status: 'completed' },
      { v: 1, type: 'text', text: 'done' },
      { v: 1, type: 'stop', stopReason: 'end_turn' },
    ]);
    expect(end).toMatchObject({ exitCode: 0, stopReason: 'end_turn' });
    expect(end.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a turn that ends otherwise than end_turn is exit 1', async () => {
    const { code, end, events } = await run('refusal');
    expect(code).toBe(EXEC_EXIT.turnFailed);
    expect(end.stopReason).toBe('refusal');
    expect(events.at(-1)).toMatchObject({ type: 'stop', stopReason: 'refusal' });
  });

  it('an audit decision becomes a decision event, masked as the audit line is', () => {
    const secret = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const audit = decisionEvent({
      time: new Date('2026-12-01T00:00:00Z'), decisionId: 'd1', method: 'fs/write_text_file', sessionId: 's-1', toolCallId: undefined,
      facts: { kind: 'edit', title: `write token ${secret}`, shellLine: undefined } as never,
      evaluation: { decision: 'deny', source: { type: 'rule', ruleId: 'protected', layer: 'user' }, reason: 'no', items: [], unresolvable: [], wouldHave: [] } as never,
      decision: 'deny', outcome: 'denied', source: { type: 'rule', ruleId: 'protected', layer: 'user' } as never, optionId: undefined, latencyMs: 1,
    });
    const event = decisionFromAudit(audit)!;
    expect(event).toMatchObject({ type: 'decision', decisionId: 'd1', method: 'fs/write_text_file', decision: 'deny', outcome: 'denied', rule: 'protected', reason: 'no', policyDecision: 'deny' });
    expect(JSON.stringify(event)).not.toContain(secret);
  });
});
