import { describe, expect, it } from 'vitest';
import type { AnswerChannel, EscalationChannel, OfferCallbacks, OfferedRequest, Withdrawal } from '../../src/escalation/channel.js';
import { FileGrantStore } from '../../src/grants/file-store.js';
import { tempDir } from '../helpers/cli.js';
import { CLAUDE_OPTIONS, harness, policyFrom } from '../helpers/harness.js';

// The escalation seam: a request offered to every channel at once, the first answer wins, the
// others are withdrawn. A second channel here stands in for the approvals daemon.

const WS = '/home/dev/project-x';
const SID = 'sess-1';
const POLICY = `
version: 1
default: ask
non_interactive: deny
rules:
  - id: status-ok
    decision: allow
    match: { command: ["git status"] }
`;

/** A channel that records what it was offered and withdrawn, and answers when the test says. */
class SecondChannel implements EscalationChannel {
  readonly name = 'second';
  readonly answersAs: readonly AnswerChannel[] = ['web', 'terminal', 'desktop'];
  readonly offered: { request: OfferedRequest; callbacks: OfferCallbacks; withdrawn: Withdrawal[] }[] = [];
  constructor(private readonly accepts = true) {}
  offer(request: OfferedRequest, callbacks: OfferCallbacks) {
    if (!this.accepts) return undefined;
    const entry = { request, callbacks, withdrawn: [] as Withdrawal[] };
    this.offered.push(entry);
    return { withdraw: (why: Withdrawal) => entry.withdrawn.push(why) };
  }
  last() {
    return this.offered.at(-1)!;
  }
}

async function setup(options: { nonInteractive?: boolean; second?: SecondChannel; timeoutMs?: number; grants?: boolean } = {}) {
  const second = options.second ?? new SecondChannel();
  const grants = options.grants ? new FileGrantStore({ dir: tempDir() }) : undefined;
  const h = await harness(await policyFrom(POLICY), {
    workspace: WS, channels: [second], nonInteractive: options.nonInteractive ?? false,
    ...(options.timeoutMs !== undefined ? { escalationTimeoutMs: options.timeoutMs } : {}), ...(grants ? { grants } : {}),
  });
  h.client({ jsonrpc: '2.0', id: 'n', method: 'session/new', params: { cwd: WS, mcpServers: [] } });
  h.agent({ jsonrpc: '2.0', id: 'n', result: { sessionId: SID } });
  const ask = (id: string, command = 'make deploy') => h.agent({
    jsonrpc: '2.0', id, method: 'session/request_permission',
    params: { sessionId: SID, toolCall: { toolCallId: `t-${id}`, kind: 'execute', title: command, rawInput: { command } }, options: CLAUDE_OPTIONS },
  });
  const editorAnswers = (id: string, optionId: string) => h.client({ jsonrpc: '2.0', id, result: { outcome: { outcome: 'selected', optionId } } });
  /** Every line the broker sent the agent for request `id` (answers, errors, relayed client answers). */
  const toAgentFor = (id: string) => h.toAgent.map((l) => JSON.parse(l) as { id?: string }).filter((m) => m.id === id);
  const cancelsToEditor = (id: string) => h.toClient.filter((l) => l.includes('$/cancel_request') && l.includes(`"requestId":"${id}"`)).length;
  return { h, second, grants, ask, editorAnswers, toAgentFor, cancelsToEditor };
}

describe('escalation: every channel at once, the first answer wins', () => {
  it('offers an ask to the editor and the second channel, with everything a human needs', async () => {
    const s = await setup();
    s.ask('q1');
    expect(s.h.toClient.at(-1)).toContain('"id":"q1"');
    const approval = s.second.last().request.approval();
    expect(approval).toMatchObject({ sessionId: SID, workspace: WS, kind: 'execute', command: 'make deploy', title: 'make deploy' });
    expect(approval.options.map((o) => o.optionId)).toEqual(CLAUDE_OPTIONS.map((o) => o.optionId));
    expect(approval.items[0]).toMatchObject({ item: expect.stringContaining('make deploy'), decision: null });
  });

  it('the second channel answers first: the agent gets that one answer, the editor dialog is withdrawn and its late answer dropped', async () => {
    const s = await setup();
    s.ask('q1');
    s.second.last().callbacks.answer({ type: 'selected', optionId: 'allow' }, 'web');
    expect(s.toAgentFor('q1')).toEqual([{ jsonrpc: '2.0', id: 'q1', result: { outcome: { outcome: 'selected', optionId: 'allow' } } }]);
    expect(s.cancelsToEditor('q1')).toBe(1);
    s.editorAnswers('q1', 'reject');
    expect(s.toAgentFor('q1')).toHaveLength(1);
    expect(s.h.audit.at(-1)).toMatchObject({ decision: 'allow', outcome: 'allowed', source: { type: 'web' }, optionId: 'allow' });
  });

  it('the editor answers first: relayed as sent, the second channel withdrawn, its late answer ignored', async () => {
    const s = await setup();
    s.ask('q1');
    s.editorAnswers('q1', 'reject');
    expect(s.toAgentFor('q1')).toEqual([{ jsonrpc: '2.0', id: 'q1', result: { outcome: { outcome: 'selected', optionId: 'reject' } } }]);
    expect(s.second.last().withdrawn).toEqual([{ type: 'answered', via: 'client' }]);
    s.second.last().callbacks.answer({ type: 'selected', optionId: 'allow' }, 'terminal');
    expect(s.toAgentFor('q1')).toHaveLength(1);
    expect(s.cancelsToEditor('q1')).toBe(0);
    expect(s.h.audit.at(-1)).toMatchObject({ decision: 'deny', source: { type: 'client' } });
  });

  it('answers racing from both channels, many times in any order: exactly one answer each time', async () => {
    const s = await setup();
    for (let i = 0; i < 200; i++) {
      const id = `r${i}`;
      s.ask(id);
      const offer = s.second.last();
      const editorFirst = i % 3 === 0;
      const second = () => offer.callbacks.answer({ type: 'selected', optionId: i % 2 ? 'allow' : 'reject' }, 'web');
      const editor = () => s.editorAnswers(id, i % 2 ? 'reject' : 'allow');
      if (editorFirst) { editor(); second(); second(); } else { second(); editor(); second(); }
      const answers = s.toAgentFor(id);
      expect(answers).toHaveLength(1);
      const chosen = (answers[0] as { result: { outcome: { optionId: string } } }).result.outcome.optionId;
      expect(chosen).toBe(editorFirst ? (i % 2 ? 'reject' : 'allow') : (i % 2 ? 'allow' : 'reject'));
    }
  });

  it('an "always" answer from the second channel records the same grant as in the editor', async () => {
    const s = await setup({ grants: true });
    s.ask('q1');
    const always = s.second.last().request.approval().options.find((o) => o.kind === 'allow_always' && o.optionId.startsWith('acp-broker:'))!;
    expect(always.covers).toBe('Always allow `make deploy` in project-x');
    s.second.last().callbacks.answer({ type: 'selected', optionId: always.optionId }, 'web');
    expect(s.toAgentFor('q1')).toEqual([{ jsonrpc: '2.0', id: 'q1', result: { outcome: { outcome: 'selected', optionId: 'allow' } } }]);
    expect(s.grants!.list()).toMatchObject([{ decision: 'allow', subject: { type: 'command', argv: ['make', 'deploy'] } }]);
    s.ask('q2');
    expect(s.toAgentFor('q2')).toEqual([{ jsonrpc: '2.0', id: 'q2', result: { outcome: { outcome: 'selected', optionId: 'allow' } } }]);
  });

  it('a timeout answers with the fallback and withdraws every channel', async () => {
    const s = await setup({ timeoutMs: 20 });
    s.ask('q1');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(s.toAgentFor('q1')).toEqual([{ jsonrpc: '2.0', id: 'q1', result: { outcome: { outcome: 'selected', optionId: 'reject' } } }]);
    expect(s.cancelsToEditor('q1')).toBe(1);
    expect(s.second.last().withdrawn).toEqual([{ type: 'timeout' }]);
    expect(s.second.last().request.approval().deadline).toBe(new Date(new Date('2026-11-30T12:00:00Z').getTime() + 20).toISOString());
  });

  it('without an editor (exec): the second channel alone takes the ask; losing it falls back, never allows', async () => {
    const s = await setup({ nonInteractive: true });
    s.ask('q1');
    expect(s.toAgentFor('q1')).toEqual([]);
    s.second.last().callbacks.lost();
    expect(s.toAgentFor('q1')).toEqual([{ jsonrpc: '2.0', id: 'q1', result: { outcome: { outcome: 'selected', optionId: 'reject' } } }]);
    expect(s.h.audit.at(-1)).toMatchObject({ decision: 'deny', source: { type: 'fallback', fallback: 'deny' } });
    s.second.last().callbacks.answer({ type: 'selected', optionId: 'allow' }, 'web');
    expect(s.toAgentFor('q1')).toHaveLength(1);
  });

  it('without an editor and with a channel that cannot take it: the fallback at once', async () => {
    const s = await setup({ nonInteractive: true, second: new SecondChannel(false) });
    s.ask('q1');
    expect(s.toAgentFor('q1')).toEqual([{ jsonrpc: '2.0', id: 'q1', result: { outcome: { outcome: 'selected', optionId: 'reject' } } }]);
  });

  it('with the editor, losing the second channel changes nothing: the editor keeps the request', async () => {
    const s = await setup();
    s.ask('q1');
    s.second.last().callbacks.lost();
    expect(s.toAgentFor('q1')).toEqual([]);
    s.editorAnswers('q1', 'allow');
    expect(s.toAgentFor('q1')).toHaveLength(1);
  });

  it("the agent's $/cancel_request withdraws the second channel's offer; without an editor the broker answers it cancelled", async () => {
    const s = await setup();
    s.ask('q1');
    s.h.agent({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'q1' } });
    expect(s.second.last().withdrawn).toEqual([{ type: 'cancelled' }]);
    expect(s.h.toClient.at(-1)).toContain('$/cancel_request');
    const alone = await setup({ nonInteractive: true });
    alone.ask('q2');
    alone.h.agent({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'q2' } });
    expect(alone.toAgentFor('q2')).toEqual([{ jsonrpc: '2.0', id: 'q2', result: { outcome: { outcome: 'cancelled' } } }]);
    expect(alone.second.last().withdrawn).toEqual([{ type: 'cancelled' }]);
  });

  it('the editor leaving cancels every open request once and withdraws the other channels', async () => {
    const s = await setup();
    s.ask('q1');
    s.h.broker.clientGone();
    expect(s.toAgentFor('q1')).toEqual([{ jsonrpc: '2.0', id: 'q1', result: { outcome: { outcome: 'cancelled' } } }]);
    expect(s.second.last().withdrawn).toEqual([{ type: 'cancelled' }]);
    s.second.last().callbacks.answer({ type: 'selected', optionId: 'allow' }, 'web');
    expect(s.toAgentFor('q1')).toHaveLength(1);
  });

  it('secrets in what a human is shown are masked as in the audit log', async () => {
    const s = await setup();
    s.ask('q1', 'curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" https://example.com');
    const approval = s.second.last().request.approval();
    expect(JSON.stringify(approval)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('a settled request is forgotten: a long session of answered escalations keeps nothing open', async () => {
    const s = await setup({ timeoutMs: 60_000 });
    for (let i = 0; i < 300; i++) {
      s.ask(`m${i}`);
      if (i % 2) s.editorAnswers(`m${i}`, 'allow');
      else s.second.last().callbacks.answer({ type: 'selected', optionId: 'reject' }, 'web');
    }
    expect(s.h.broker.escalatedCount()).toBe(0);
    s.ask('open');
    expect(s.h.broker.escalatedCount()).toBe(1);
  });
});

