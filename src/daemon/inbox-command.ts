/**
 * `acp-broker inbox [--print]`: opens the running daemon's web inbox in the browser, or prints its
 * address (with its sign-in token) when there is no browser to open — over SSH, say.
 * Exit codes: 0 opened or printed; 1 no daemon or no inbox; 2 usage.
 */
import { spawn } from 'node:child_process';
import { BrokerError } from '../core/errors.js';
import type { ParsedArgs } from '../cli/args.js';
import type { CommandIo } from './commands.js';
import { probeRunning } from './daemon.js';
import { daemonLocation } from './location.js';

export async function inboxCommand(args: ParsedArgs, io: CommandIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (args.positionals.length > 0) throw new BrokerError('usage', 'inbox takes no argument (--print prints the address instead of opening it)');
  const probe = await probeRunning(daemonLocation(env));
  if (probe.type !== 'running') {
    io.stderr('acp-broker: no approvals daemon is running; start one with `acp-broker daemon`\n');
    return 1;
  }
  const url = probe.status.inbox;
  if (url === null) {
    io.stderr('acp-broker: the approvals daemon runs without its web inbox (--no-web); `acp-broker approvals` answers from here\n');
    return 1;
  }
  const opener = args.flags.has('--print') ? undefined : browserOpener(env);
  if (opener && await opens(opener, url)) {
    io.stdout(`opened the inbox in your browser (${new URL(url).origin})\n`);
    return 0;
  }
  io.stdout(`${url}\n`);
  return 0;
}

/** The platform's "open this address" command, when a desktop session can show a browser. */
function browserOpener(env: NodeJS.ProcessEnv): string[] | undefined {
  if (process.platform === 'darwin') return ['open'];
  if (process.platform === 'win32') return ['cmd', '/c', 'start', '""'];
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return ['xdg-open'];
}

function opens(command: string[], url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, [...command.slice(1), url], { stdio: 'ignore', detached: true });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
    child.unref();
  });
}
