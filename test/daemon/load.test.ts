import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDaemon, isFailure, type DaemonConnection } from '../../src/daemon/client.js';
import { METHODS, type DaemonStatus, type ListResult } from '../../src/daemon/protocol.js';
import { connectApprovals, type DaemonChannel } from '../../src/escalation/daemon-channel.js';
import { offered, approval, recorder, startDaemon, type RunningDaemon } from './helpers.js';

const BROKERS = 50;
const PER_BROKER = 20;

let d: RunningDaemon;
let control: DaemonConnection;
beforeAll(async () => {
  d = await startDaemon({ nodeArgs: ['--expose-gc'] });
  const connection = await connectDaemon(d.socket, { role: 'control' });
  if (isFailure(connection)) throw new Error(connection.detail);
  control = connection;
});
afterAll(async () => {
  control.link.destroy();
  await d.stop();
});

const status = async () => (await control.link.request(METHODS.status, {})) as DaemonStatus;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

describe('50 brokers with 1,000 open approvals', () => {
  it('every approval gets exactly one answer, and the daemon\'s heap returns to where it was once they are answered', async () => {
    const channels: DaemonChannel[] = await Promise.all(Array.from({ length: BROKERS }, (_, b) =>
      connectApprovals('daemon', { env: { ACP_BROKER_HOME: d.home }, agent: `agent-${b}` }).then((c) => c!)));
    const baseline = await status();
    expect(baseline.brokers).toBe(BROKERS);
    const samples: string[] = [`baseline heap ${mib(baseline.heapUsed)} rss ${mib(baseline.rss)}`];
    for (let round = 0; round < 2; round++) {
      const recorders = channels.flatMap((channel, b) => Array.from({ length: PER_BROKER }, (_, i) => {
        const r = recorder();
        const diff = { path: `/w/src/file-${i}.ts`, oldText: 'x'.repeat(2000), newText: 'y'.repeat(2000) };
        channel.offer(offered(approval(`r${round}-${b}-${i}`, { kind: 'edit', command: undefined, diffs: [diff] })), r.callbacks);
        return r;
      }));
      let open = await status();
      for (let i = 0; i < 200 && open.pending < BROKERS * PER_BROKER; i++) open = await status();
      expect(open.pending).toBe(BROKERS * PER_BROKER);
      samples.push(`round ${round + 1}: ${open.pending} open: heap ${mib(open.heapUsed)} rss ${mib(open.rss)}`);
      const { approvals } = (await control.link.request(METHODS.list, {})) as ListResult;
      const results = await Promise.all(approvals.map((a, i) => control.link.request(METHODS.answer, { id: a.id, optionId: i % 2 === 0 ? 'allow' : 'reject' })));
      expect(results.every((r) => (r as { type: string }).type === 'accepted')).toBe(true);
      const outcomes = await Promise.all(recorders.map((r) => r.settled));
      expect(outcomes.every((o) => o.type === 'answer' && o.via === 'terminal')).toBe(true);
      expect(recorders.every((r) => r.calls.length === 1)).toBe(true);
      const after = await status();
      expect(after.pending).toBe(0);
      samples.push(`round ${round + 1}: answered: heap ${mib(after.heapUsed)} rss ${mib(after.rss)}`);
      // Flat: what 1,000 approvals held is given back (a generous margin for the collector's timing).
      expect(after.heapUsed - baseline.heapUsed).toBeLessThan(8 * 1024 * 1024);
    }
    console.log(`daemon memory, ${BROKERS} brokers x ${PER_BROKER} approvals (2 KB diffs):\n  ${samples.join('\n  ')}`);
    channels.forEach((c) => c.close());
  }, 120_000);
});
