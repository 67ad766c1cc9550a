/**
 * A real notification stack for tests: a private session D-Bus, Xvfb and dunst (with libnotify's
 * notify-send, which node-notifier drives). What dunst displayed is read back with `dunstctl history`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/cli.js';

const run = promisify(execFile);

export interface ShownNotification {
  readonly id: number;
  readonly summary: string;
  readonly body: string;
  /** low | normal | critical, from the per-urgency format in the test's dunstrc. */
  readonly urgency: string;
  readonly appname: string;
}

export interface DesktopStack {
  /** Environment for processes that should notify into this stack. */
  readonly env: NodeJS.ProcessEnv;
  /** Everything dunst has shown since the last call, oldest first. */
  shownSince(): Promise<ShownNotification[]>;
  stop(): Promise<void>;
}

const DUNSTRC = `[global]
history_length = 500
notification_limit = 0
[urgency_low]
format = "low|%s|%b"
timeout = 0
[urgency_normal]
format = "normal|%s|%b"
timeout = 0
[urgency_critical]
format = "critical|%s|%b"
timeout = 0
`;

export async function startDesktop(): Promise<DesktopStack> {
  const dir = tempDir('acp-broker-desktop-');
  const rc = join(dir, 'dunstrc');
  writeFileSync(rc, DUNSTRC);
  const children: ChildProcess[] = [];
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(bus);
  const address = (await firstLine(bus)).trim();
  const xvfb = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '640x480x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(xvfb);
  const display = `:${(await firstLine(xvfb)).trim()}`;
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, DISPLAY: display };
  const dunst = spawn('dunst', ['-conf', rc], { env, stdio: 'ignore' });
  children.push(dunst);
  // dunst is ready once it answers on the bus.
  for (let i = 0; ; i++) {
    try {
      await run('dunstctl', ['is-paused'], { env });
      break;
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  let seen = 0;
  return {
    env,
    async shownSince() {
      await run('dunstctl', ['close-all'], { env });
      await new Promise((r) => setTimeout(r, 100));
      const { stdout } = await run('dunstctl', ['history'], { env });
      const entries = (JSON.parse(stdout) as { data: Record<string, { data: unknown }>[][] }).data[0] ?? [];
      const shown = entries.map((e) => {
        const message = String(e.message?.data ?? '');
        return {
          id: Number(e.id?.data), summary: String(e.summary?.data), body: String(e.body?.data),
          urgency: message.slice(0, message.indexOf('|')), appname: String(e.appname?.data),
        };
      }).filter((n) => n.id > seen).sort((a, b) => a.id - b.id);
      seen = Math.max(seen, ...shown.map((n) => n.id));
      return shown;
    },
    async stop() {
      for (const child of children.reverse()) child.kill('SIGTERM');
      await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.on('close', r)))));
    },
  };
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    });
    child.on('error', reject);
    child.on('close', () => reject(new Error(`${String(child.spawnfile)} exited before it was ready`)));
  });
}
