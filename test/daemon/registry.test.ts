import { describe, expect, it } from 'vitest';
import type { ApprovalsEvent } from '../../src/daemon/approvals-view.js';
import { ApprovalsRegistry, MAX_OPEN_PER_BROKER, type BrokerPeer } from '../../src/daemon/registry.js';
import type { WireAnswer } from '../../src/daemon/protocol.js';
import { approval } from './helpers.js';

function peer(key: string): BrokerPeer & { answers: { approvalId: string; answer: WireAnswer; via: string }[]; returns: string[] } {
  const answers: { approvalId: string; answer: WireAnswer; via: string }[] = [];
  const returns: string[] = [];
  return {
    key, pid: 100, agent: 'claude-agent-acp', answers, returns,
    answered: (approvalId, answer, via) => answers.push({ approvalId, answer, via }),
    returned: (approvalId) => returns.push(approvalId),
  };
}

describe('the approvals registry', () => {
  it('takes exactly one answer per approval, whatever the order and the channel, many times over', async () => {
    const registry = new ApprovalsRegistry();
    const broker = peer('1');
    const channels = ['web', 'terminal', 'desktop'] as const;
    for (let round = 0; round < 500; round++) {
      const opened = registry.add(broker, approval(`r${round}`));
      if (opened.type !== 'opened') throw new Error('not opened');
      // Answers race from every front end at once (microtasks interleave them in varying order).
      const attempts = Array.from({ length: 12 }, (_, i) => Promise.resolve().then(async () => {
        for (let k = 0; k < (i * 7 + round) % 4; k++) await Promise.resolve();
        return registry.answer(opened.id, i % 2 === 0 ? 'allow' : 'reject', channels[i % 3]!);
      }));
      const results = await Promise.all(attempts);
      expect(results.filter((r) => r.type === 'accepted')).toHaveLength(1);
      expect(results.filter((r) => r.type === 'settled')).toHaveLength(11);
    }
    expect(broker.answers).toHaveLength(500);
    expect(new Set(broker.answers.map((a) => a.approvalId)).size).toBe(500);
    expect(registry.size).toBe(0);
  });

  it('tells apart unknown ids, options not offered, and settled approvals; pushes every change to subscribers', () => {
    const registry = new ApprovalsRegistry(() => new Date('2026-12-01T10:00:00Z'));
    const events: ApprovalsEvent[] = [];
    const unsubscribe = registry.subscribe((e) => events.push(e));
    registry.subscribe(() => { throw new Error('a broken front end'); });
    const broker = peer('7');
    expect(registry.add(broker, approval('a1'))).toEqual({ type: 'opened', id: '7-a1' });
    expect(registry.add(broker, approval('a1'))).toEqual({ type: 'duplicate' });
    expect(registry.pending()).toMatchObject([{ id: '7-a1', broker: { pid: 100, agent: 'claude-agent-acp' }, openedAt: '2026-12-01T10:00:00.000Z' }]);
    expect(registry.answer('nope', 'allow', 'web')).toEqual({ type: 'unknown' });
    expect(registry.answer('7-a1', 'made-up', 'web')).toEqual({ type: 'bad_option' });
    expect(registry.answer('7-a1', 'acp-broker:allow_always', 'web')).toEqual({ type: 'accepted' });
    expect(registry.answer('7-a1', 'reject', 'terminal')).toEqual({ type: 'settled' });
    expect(broker.answers).toEqual([{ approvalId: 'a1', answer: { type: 'selected', optionId: 'acp-broker:allow_always' }, via: 'web' }]);
    // Withdrawn, gone and returned approvals settle the same way.
    registry.add(broker, approval('a2'));
    expect(registry.withdraw(broker, 'a2', 'answered via client')).toBe(true);
    expect(registry.withdraw(broker, 'a2', 'timeout')).toBe(false);
    expect(registry.answer('7-a2', 'allow', 'web')).toEqual({ type: 'settled' });
    registry.add(broker, approval('a3'));
    registry.dropPeer(broker);
    const other = peer('8');
    registry.add(other, approval('a4'));
    registry.returnAll();
    expect(other.returns).toEqual(['a4']);
    expect(events.map((e) => (e.type === 'opened' ? `opened ${e.approval.id}` : `${e.id} ${JSON.stringify(e.settlement)}`))).toEqual([
      'opened 7-a1',
      '7-a1 {"type":"answered","via":"web","optionId":"acp-broker:allow_always"}',
      'opened 7-a2',
      '7-a2 {"type":"withdrawn","reason":"answered via client"}',
      'opened 7-a3',
      '7-a3 {"type":"gone"}',
      'opened 8-a4',
      '8-a4 {"type":"withdrawn","reason":"daemon stopping"}',
    ]);
    unsubscribe();
    registry.add(other, approval('a5'));
    expect(events).toHaveLength(8);
  });

  it('refuses a broker more than MAX_OPEN_PER_BROKER open approvals, and counts down as they settle', () => {
    const registry = new ApprovalsRegistry();
    const greedy = peer('1');
    for (let i = 0; i < MAX_OPEN_PER_BROKER; i++) expect(registry.add(greedy, approval(`g${i}`)).type).toBe('opened');
    expect(registry.add(greedy, approval('one-too-many'))).toEqual({ type: 'too_many' });
    expect(registry.add(peer('2'), approval('other-broker')).type).toBe('opened');
    registry.answer('1-g0', 'allow', 'web');
    expect(registry.add(greedy, approval('room-again')).type).toBe('opened');
  });

  it('remembers a bounded number of settled ids: memory stays flat however many approvals pass', () => {
    const registry = new ApprovalsRegistry();
    const broker = peer('1');
    for (let i = 0; i < 20_000; i++) {
      const opened = registry.add(broker, approval(`m${i}`));
      if (opened.type === 'opened') registry.answer(opened.id, 'allow', 'web');
    }
    expect(registry.size).toBe(0);
    expect(registry.answer('1-m19999', 'allow', 'web')).toEqual({ type: 'settled' });
    expect(registry.answer('1-m0', 'allow', 'web')).toEqual({ type: 'unknown' });
  });
});
