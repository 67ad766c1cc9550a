import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectApprovals, type DaemonChannel } from '../../src/escalation/daemon-channel.js';
import { startDesktop, type DesktopStack, type ShownNotification } from './desktop.js';
import { offered, approval, recorder, startDaemon, waitFor, type RunningDaemon } from './helpers.js';

let desktop: DesktopStack;
let d: RunningDaemon;
let channel: DaemonChannel;
beforeAll(async () => {
  desktop = await startDesktop();
  d = await startDaemon({ args: ['--no-web'], env: desktop.env });
  channel = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: d.home } }))!;
});
afterAll(async () => {
  channel?.close();
  await d?.stop();
  await desktop?.stop();
});

/** What dunst shows from now on, once `count` notifications have arrived (and a moment more for strays). */
async function shown(count: number): Promise<ShownNotification[]> {
  const all: ShownNotification[] = [];
  for (let i = 0; i < 60 && all.length < count; i++) {
    all.push(...(await desktop.shownSince()));
    if (all.length < count) await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1500));
  all.push(...(await desktop.shownSince()));
  return all;
}

describe('desktop notifications through a real notification daemon (dunst)', () => {
  it('one approval: who wants what where, secrets masked, how to answer on Linux, urgency by risk', async () => {
    channel.offer(offered(approval('n1', { command: 'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 npm publish --access public' })), recorder().callbacks);
    const [n, ...rest] = await shown(1);
    expect(rest).toEqual([]);
    expect(n).toMatchObject({ summary: 'claude-agent-acp needs your approval', urgency: 'critical', appname: 'acp-broker' });
    expect(n!.body.split('\n')).toEqual([
      'claude-agent-acp wants to run `GITHUB_TOKEN=*** npm publish --access public` in shop-api.',
      'Why asked: rule user:ask-publish asks',
      expect.stringMatching(/^Answer with `acp-broker approvals allow \d+-n1` \(or deny\)\.$/),
    ]);
    expect(JSON.stringify(n)).not.toContain('ghp_');
  });

  it('a long multi-line command is cut to one readable line; a read is low urgency', async () => {
    const script = `for f in $(ls src/generated/very/long/path/to/many/files/*.ts); do node scripts/transform.mjs --in "$f" --out dist; done\necho done\nrm -f tmp`;
    channel.offer(offered(approval('n2', { command: script, deadline: '2026-12-01T11:30:00+01:00' })), recorder().callbacks);
    const [long] = await shown(1);
    const line = long!.body.split('\n')[0]!;
    expect(line).toMatch(/^claude-agent-acp wants to run `for f in \$\(ls src\/generated\/very\/long\/path\/to\/many\/files\/\*\.ts\); do…` \(\+2 more lines\) in shop-api\.$/);
    expect(long!.body).toContain('Falls back at 10:30:00 UTC if nobody answers.');
    channel.offer(offered(approval('n3', { kind: 'read', command: undefined, title: 'Read .env', paths: [{ path: '/home/dev/shop-api/.env', access: 'read' }] })), recorder().callbacks);
    const [read] = await shown(1);
    expect(read).toMatchObject({ urgency: 'low' });
    expect(read!.body).toContain('claude-agent-acp wants to read /home/dev/shop-api/.env in shop-api.');
  });

  it('50 approvals in a second are one summarising notification', async () => {
    for (let i = 0; i < 50; i++) {
      channel.offer(offered(approval(`burst-${i}`, { command: `npm test -- --shard=${i}` })), recorder().callbacks);
      await new Promise((r) => setTimeout(r, 15));
    }
    const all = await shown(1);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ summary: '50 approvals waiting from claude-agent-acp', urgency: 'normal' });
    expect(all[0]!.body.split('\n')).toEqual([
      '• claude-agent-acp wants to run `npm test -- --shard=0` in shop-api',
      '• claude-agent-acp wants to run `npm test -- --shard=1` in shop-api',
      '• claude-agent-acp wants to run `npm test -- --shard=2` in shop-api',
      '• … and 47 more',
      'Answer with `acp-broker approvals`.',
    ]);
  });

  it('an approval answered elsewhere at once is never shown', async () => {
    const offer = channel.offer(offered(approval('quick')), recorder().callbacks)!;
    await new Promise((r) => setTimeout(r, 20));
    offer.withdraw({ type: 'answered', via: 'client' });
    expect(await shown(0)).toEqual([]);
  });

  it('--no-desktop shows nothing', async () => {
    const quiet = await startDaemon({ args: ['--no-web', '--no-desktop'], env: desktop.env });
    const other = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: quiet.home } }))!;
    try {
      other.offer(offered(approval('silent')), recorder().callbacks);
      expect(await shown(0)).toEqual([]);
    } finally {
      other.close();
      await quiet.stop();
    }
  });
});
