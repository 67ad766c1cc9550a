import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectApprovals } from '../../src/escalation/daemon-channel.js';
import { CLI, tempDir } from '../helpers/cli.js';
import { offered, approval, cli, recorder, startDaemon, waitFor, type RunningDaemon } from './helpers.js';

const running: RunningDaemon[] = [];
afterEach(async () => { await Promise.all(running.splice(0).map((d) => d.stop())); });

async function daemon(options: Parameters<typeof startDaemon>[0] = {}): Promise<RunningDaemon> {
  const d = await startDaemon(options);
  running.push(d);
  return d;
}

describe('the approvals daemon process', () => {
  it('listens on a socket only its user can reach, and records pid, socket and inbox', async () => {
    const d = await daemon();
    expect(statSync(join(d.home, 'daemon')).mode & 0o777).toBe(0o700);
    const socket = statSync(d.socket);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(join(d.home, 'daemon', 'daemon.json'), 'utf8')) as Record<string, unknown>;
    expect(info).toMatchObject({ protocol: 1, pid: d.child.pid, socket: d.socket, inbox: null });
    expect(statSync(join(d.home, 'daemon', 'daemon.json')).mode & 0o777).toBe(0o600);
  });

  it('a second start reports the running daemon and exits 0, leaving it running', async () => {
    const d = await daemon();
    const second = await cli(d.home, ['daemon', '--no-web', '--no-desktop']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`pid ${d.child.pid}`);
    expect(second.stdout).toContain(d.socket);
    expect(second.stdout).toContain('inbox none');
    const status = await cli(d.home, ['daemon', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`pid ${d.child.pid}`);
  });

  it('daemons started at the same moment: exactly one runs, the others report it and exit 0', async () => {
    const home = tempDir();
    const starts = Array.from({ length: 4 }, () => spawn(process.execPath, [CLI, 'daemon', '--no-web', '--no-desktop'], {
      env: { ...process.env, ACP_BROKER_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'],
    }));
    const outputs = starts.map((child) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
      return () => out;
    });
    const exits = starts.map((child) => new Promise<number | null>((r) => child.on('close', (code) => r(code))));
    try {
      // Three of them exit 0 with the running one's pid; one keeps running.
      await waitFor(() => starts.filter((c) => c.exitCode !== null).length >= 3, 10_000);
      await new Promise((r) => setTimeout(r, 300));
      const alive = starts.filter((c) => c.exitCode === null);
      expect(alive).toHaveLength(1);
      for (const [i, child] of starts.entries()) {
        if (child === alive[0]) continue;
        expect(child.exitCode).toBe(0);
        expect(outputs[i]!()).toContain(`acp-broker daemon is running: pid ${alive[0]!.pid}`);
      }
      expect((await cli(home, ['daemon', 'status'])).stdout).toContain(`pid ${alive[0]!.pid}`);
    } finally {
      starts.forEach((c) => c.kill('SIGTERM'));
      await Promise.all(exits);
    }
  });

  it('status says when none runs (exit 1); stop stops it and removes socket and info file', async () => {
    const home = tempDir();
    expect(await cli(home, ['daemon', 'status'])).toMatchObject({ code: 1, stdout: 'acp-broker daemon is not running\n' });
    const d = await daemon({ home });
    const stop = await cli(home, ['daemon', 'stop']);
    expect(stop).toMatchObject({ code: 0, stdout: `acp-broker daemon stopped (pid ${d.child.pid})\n` });
    expect(await d.exit).toEqual({ code: 0, signal: null });
    expect(existsSync(d.socket)).toBe(false);
    expect(existsSync(join(home, 'daemon', 'daemon.json'))).toBe(false);
    expect(await cli(home, ['daemon', 'stop'])).toMatchObject({ code: 0, stdout: 'acp-broker daemon is not running\n' });
  });

  it('replaces a stale socket left by a crashed daemon', async () => {
    const home = tempDir();
    const crashed = await daemon({ home });
    crashed.child.kill('SIGKILL');
    await crashed.exit;
    expect(existsSync(crashed.socket)).toBe(true);
    expect((await cli(home, ['daemon', 'status'])).code).toBe(1);
    const d = await daemon({ home });
    expect(d.stderr()).toContain('replacing the stale socket');
    expect((await cli(home, ['daemon', 'status'])).stdout).toContain(`pid ${d.child.pid}`);
  });

  it('refuses to take over a socket something else answers on', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'daemon'), { mode: 0o700 });
    const other = createServer((s) => s.on('data', () => s.write('{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"who?"}}\n')));
    await new Promise<void>((r) => other.listen(join(home, 'daemon', 'approvals.sock'), r));
    try {
      const start = await cli(home, ['daemon', '--no-web', '--no-desktop']);
      expect(start.code).toBe(2);
      expect(start.stderr).toMatch(/^acp-broker: something other than this daemon's version answers on .*approvals\.sock/);
    } finally {
      other.close();
    }
  });

  it('SIGTERM hands every open approval back to its broker, which is told at once', async () => {
    const d = await daemon();
    const channel = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: d.home } }))!;
    const offers = [recorder(), recorder(), recorder()];
    offers.forEach((r, i) => expect(channel.offer(offered(approval(`a${i}`)), r.callbacks)).toBeDefined());
    expect((await cli(d.home, ['daemon', 'status'])).stdout).toContain('1 broker(s) connected, 3 approval(s) open');
    d.child.kill('SIGTERM');
    const outcomes = await Promise.all(offers.map((r) => r.settled));
    expect(outcomes).toEqual([{ type: 'lost' }, { type: 'lost' }, { type: 'lost' }]);
    expect(await d.exit).toEqual({ code: 0, signal: null });
    expect(d.stderr()).toContain('handing 3 open approval(s) back');
    offers.forEach((r) => expect(r.calls).toHaveLength(1));
    expect(channel.connected).toBe(false);
    expect(channel.offer(offered(approval('after')), recorder().callbacks)).toBeUndefined();
  });

  it('SIGINT stops it the same way', async () => {
    const d = await daemon();
    d.child.kill('SIGINT');
    expect(await d.exit).toEqual({ code: 0, signal: null });
    expect(existsSync(d.socket)).toBe(false);
  });

  it('a daemon killed (SIGKILL) mid-approval: the broker reports the offer lost, never an answer, and never hangs', async () => {
    const d = await daemon();
    const channel = (await connectApprovals('auto', { env: { ACP_BROKER_HOME: d.home }, retryMs: 0 }))!;
    expect(channel.connected).toBe(true);
    const r = recorder();
    channel.offer(offered(approval('k1')), r.callbacks);
    expect((await cli(d.home, ['daemon', 'status'])).stdout).toContain('1 approval(s) open');
    d.child.kill('SIGKILL');
    expect(await r.settled).toEqual({ type: 'lost' });
    expect(r.calls).toHaveLength(1);
    // A later daemon is found again on the next offer (auto mode).
    const next = await daemon({ home: d.home });
    expect(channel.offer(offered(approval('k2')), recorder().callbacks)).toBeUndefined();
    await waitFor(() => channel.connected, 5000);
    expect(next.stderr()).toContain('replacing the stale socket');
    expect(channel.offer(offered(approval('k3')), recorder().callbacks)).toBeDefined();
    channel.close();
  });

  it('--approvals daemon with none running is one clear error; auto gives a channel that offers nothing; off gives none', async () => {
    const home = tempDir();
    await expect(connectApprovals('daemon', { env: { ACP_BROKER_HOME: home } })).rejects.toThrow(/^no approvals daemon is running \(start one with `acp-broker daemon`/);
    const auto = await connectApprovals('auto', { env: { ACP_BROKER_HOME: home } });
    expect(auto?.connected).toBe(false);
    expect(auto?.offer(offered(approval('x')), recorder().callbacks)).toBeUndefined();
    auto?.close();
    expect(await connectApprovals('off', { env: { ACP_BROKER_HOME: home } })).toBeUndefined();
  });

  it('a missing notifier is a warning, never a crash', async () => {
    const d = await daemon({ args: ['--no-web'], env: { PATH: '/nonexistent', DBUS_SESSION_BUS_ADDRESS: '' } });
    const channel = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: d.home } }))!;
    channel.offer(offered(approval('n1')), recorder().callbacks);
    await waitFor(() => /warning: desktop notifications unavailable/.test(d.stderr()), 5000, () => d.stderr());
    expect((await cli(d.home, ['daemon', 'status'])).stdout).toContain('1 approval(s) open');
    channel.close();
  });

  it('rejects a bad --port with a one-line usage error and the synopsis', async () => {
    const run = spawn(process.execPath, [CLI, 'daemon', '--port', '99999'], { env: { ...process.env, ACP_BROKER_HOME: tempDir() } });
    let err = '';
    run.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    const code = await new Promise((r) => run.on('close', r));
    expect(code).toBe(2);
    expect(err).toBe('acp-broker: --port takes a port number (0-65535), not `99999`\nusage: acp-broker daemon [--port N] [--no-desktop] [--no-web]\n       acp-broker daemon status | stop\n(`acp-broker help daemon` shows its options and examples)\n');
  });
});
