import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES } from '../../src/daemon/protocol.js';
import { connectApprovals, fitToFrame, parseApprovalsMode } from '../../src/escalation/daemon-channel.js';
import { tempDir } from '../helpers/cli.js';
import { offered, approval, cli, recorder, startDaemon, waitFor } from './helpers.js';

/** A scripted daemon: answers hello and approval/open, and lets the test send what it likes. */
async function fakeDaemon(): Promise<{ home: string; server: Server; peer: () => Socket; received: Record<string, unknown>[] }> {
  const home = tempDir();
  mkdirSync(join(home, 'daemon'), { mode: 0o700 });
  const received: Record<string, unknown>[] = [];
  let socket: Socket | undefined;
  const server = createServer((s) => {
    socket = s;
    let buffer = '';
    s.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const message = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
        buffer = buffer.slice(nl + 1);
        received.push(message);
        if (message.method === 'hello') s.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocol: 1, pid: 1, inbox: null } })}\n`);
        if (message.method === 'approval/open') s.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { id: 'x' } })}\n`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(join(home, 'daemon', 'approvals.sock'), r));
  return { home, server, peer: () => socket!, received };
}

const servers: Server[] = [];
afterEach(() => { servers.splice(0).forEach((s) => s.close()); });

const send = (s: Socket, method: string, params: unknown) => s.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);

describe('the daemon channel (broker side)', () => {
  it('reports one answer per offer, ignores malformed and unknown answers, and voids an option it did not offer', async () => {
    const fake = await fakeDaemon();
    servers.push(fake.server);
    const logs: string[] = [];
    const channel = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: fake.home }, log: (m) => logs.push(m) }))!;
    const good = recorder();
    const forged = recorder();
    channel.offer(offered(approval('g')), good.callbacks);
    channel.offer(offered(approval('f')), forged.callbacks);
    expect(channel.offer(offered(approval('g')), recorder().callbacks)).toBeUndefined();
    await waitFor(() => fake.received.filter((m) => m.method === 'approval/open').length === 2);
    const s = fake.peer();
    s.write('garbage\n');
    send(s, 'approval/answered', { approvalId: 'g', answer: { type: 'selected' }, via: 'web' });
    send(s, 'approval/answered', { approvalId: 'nobody', answer: { type: 'cancelled' }, via: 'web' });
    send(s, 'approval/answered', { approvalId: 'f', answer: { type: 'selected', optionId: 'made-up' }, via: 'web' });
    send(s, 'approval/answered', { approvalId: 'g', answer: { type: 'selected', optionId: 'allow' }, via: 'web' });
    send(s, 'approval/answered', { approvalId: 'g', answer: { type: 'selected', optionId: 'reject' }, via: 'web' });
    expect(await good.settled).toEqual({ type: 'answer', answer: { type: 'selected', optionId: 'allow' }, via: 'web' });
    expect(await forged.settled).toEqual({ type: 'lost' });
    await new Promise((r) => setTimeout(r, 100));
    expect(good.calls).toHaveLength(1);
    expect(forged.calls).toHaveLength(1);
    expect(logs.join('\n')).toMatch(/malformed answer[\s\S]*an option it was not offered/);
    // The daemon's error answer to "garbage" went back to it; the channel is still connected.
    expect(fake.received.some((m) => (m.error as { code?: number } | undefined)?.code === -32700)).toBe(true);
    expect(channel.connected).toBe(true);
    channel.close();
  });

  it('withdraw tells the daemon once, with the reason and the winning channel; close withdraws the rest', async () => {
    const fake = await fakeDaemon();
    servers.push(fake.server);
    const channel = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: fake.home } }))!;
    const offer = channel.offer(offered(approval('w')), recorder().callbacks)!;
    channel.offer(offered(approval('open-at-close')), recorder().callbacks);
    offer.withdraw({ type: 'answered', via: 'client' });
    offer.withdraw({ type: 'timeout' });
    channel.close();
    await waitFor(() => fake.received.filter((m) => m.method === 'approval/withdraw').length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.received.filter((m) => m.method === 'approval/withdraw').map((m) => m.params)).toEqual([
      { approvalId: 'w', reason: 'answered', via: 'client' },
      { approvalId: 'open-at-close', reason: 'shutdown' },
    ]);
  });

  it('a daemon that does not answer hello is not a daemon: auto offers nothing, daemon mode is an error', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'daemon'), { mode: 0o700 });
    const mute = createServer(() => {});
    servers.push(mute);
    await new Promise<void>((r) => mute.listen(join(home, 'daemon', 'approvals.sock'), r));
    await expect(connectApprovals('daemon', { env: { ACP_BROKER_HOME: home } })).rejects.toThrow(/^the approvals daemon did not answer as expected \(no hello from .* within 2000 ms\)/);
    const auto = (await connectApprovals('auto', { env: { ACP_BROKER_HOME: home } }))!;
    expect(auto.offer(offered(approval('m')), recorder().callbacks)).toBeUndefined();
    auto.close();
  }, 15_000);

  it('cuts diffs that would not fit one frame, and drops them if cutting is not enough', () => {
    const huge = 'x'.repeat(MAX_FRAME_BYTES);
    const cut = fitToFrame(approval('d', { diffs: [{ path: '/a', oldText: huge, newText: huge }] }))!;
    expect(cut.diffs[0]!.newText).toMatch(/^x{65536}\n… \(\d+ more characters not shown\)$/);
    const many = Array.from({ length: 100 }, (_, i) => ({ path: `/f${i}`, oldText: null, newText: huge.slice(0, 70_000) }));
    expect(fitToFrame(approval('e', { diffs: many }))!.diffs).toEqual([]);
    const small = approval('s');
    expect(fitToFrame(small)).toBe(small);
  });

  it('--approvals takes auto, daemon or off', () => {
    expect(parseApprovalsMode(undefined)).toBe('auto');
    expect(parseApprovalsMode('off')).toBe('off');
    expect(() => parseApprovalsMode('yes')).toThrow('--approvals takes auto, daemon or off, not `yes`');
  });

  it('with the web inbox enabled, the daemon runs whether or not the inbox is part of the build', async () => {
    const d = await startDaemon({ args: ['--no-desktop'] });
    try {
      const status = await cli(d.home, ['daemon', 'status']);
      expect(status.code).toBe(0);
      const absent = d.stderr().includes('the web inbox is not part of this build');
      expect(absent || /inbox http:\/\/127\.0\.0\.1:\d+/.test(status.stdout)).toBe(true);
    } finally {
      await d.stop();
    }
  });
});
