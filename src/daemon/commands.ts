/**
 * `acp-broker daemon [status|stop] [--port N] [--no-desktop] [--no-web]` and
 * `acp-broker approvals [list [--json] | allow ID [--always] | deny ID [--always]]` (terminal answers).
 * Exit codes: 0 done; 1 nothing to act on (no daemon, no such approval, already answered); 2 usage.
 */
import { BrokerError } from '../core/errors.js';
import { single, type ParsedArgs } from '../cli/args.js';
import type { PendingApproval } from './approvals-view.js';
import { connectDaemon, isFailure, type DaemonConnection } from './client.js';
import { describeRunning, probeRunning, runDaemon } from './daemon.js';
import { daemonLocation, readInfo } from './location.js';
import { sentence } from './notification-text.js';
import { METHODS, type AnswerCallResult, type ListResult } from './protocol.js';

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export async function daemonCommand(args: ParsedArgs, io: CommandIo): Promise<number> {
  const [action, extra] = args.positionals;
  if (extra !== undefined) throw new BrokerError('usage', `daemon takes one action (status or stop), got \`${extra}\``);
  const location = daemonLocation();
  switch (action) {
    case undefined: return runDaemon({ port: port(args), desktop: !args.flags.has('--no-desktop'), web: !args.flags.has('--no-web'), ...io });
    case 'status': {
      const probe = await probeRunning(location);
      if (probe.type === 'running') { io.stdout(describeRunning(probe.status)); return 0; }
      if (probe.type === 'other') {
        io.stderr(`acp-broker: something other than this daemon's version answers on ${location.socket} (${probe.detail})\n`);
        return 1;
      }
      const stale = readInfo(location);
      io.stdout(`acp-broker daemon is not running${stale ? ` (pid ${stale.pid} in ${location.infoFile} is gone)` : ''}\n`);
      return 1;
    }
    case 'stop': return stopDaemon(io);
    default: throw new BrokerError('usage', `unknown daemon action \`${action}\`: daemon [status|stop]`);
  }
}

async function stopDaemon(io: CommandIo): Promise<number> {
  const location = daemonLocation();
  const connection = await connectDaemon(location.socket, { role: 'control' });
  if (isFailure(connection)) {
    io.stdout('acp-broker daemon is not running\n');
    return 0;
  }
  await connection.link.request(METHODS.stop, {});
  // The daemon ends every connection once its approvals are handed back: that is the sign it is done.
  const gaveUp = await Promise.race([connection.link.closed.then(() => processGone(connection.hello.pid)), delay(10_000).then(() => true)]);
  connection.link.destroy();
  if (gaveUp) {
    io.stderr(`acp-broker: the daemon (pid ${connection.hello.pid}) did not stop within 10 s\n`);
    return 1;
  }
  io.stdout(`acp-broker daemon stopped (pid ${connection.hello.pid})\n`);
  return 0;
}

export async function approvalsCommand(args: ParsedArgs, io: CommandIo): Promise<number> {
  const [action = 'list', id, extra] = args.positionals;
  if (extra !== undefined) throw new BrokerError('usage', `approvals ${action} takes one ID, got also \`${extra}\``);
  if (action === 'list') {
    if (id !== undefined) throw new BrokerError('usage', 'approvals list takes no argument');
    return withDaemon(io, async (connection) => {
      const { approvals } = (await connection.link.request(METHODS.list, {})) as ListResult;
      io.stdout(args.flags.has('--json') ? `${JSON.stringify(approvals, undefined, 2)}\n` : formatList(approvals));
      return 0;
    });
  }
  if (action !== 'allow' && action !== 'deny') throw new BrokerError('usage', `unknown approvals action \`${action}\`: approvals [list|allow ID|deny ID] [--always]`);
  if (id === undefined) throw new BrokerError('usage', `approvals ${action} needs the approval's ID (acp-broker approvals list shows them)`);
  const always = args.flags.has('--always');
  return withDaemon(io, async (connection) => {
    const { approvals } = (await connection.link.request(METHODS.list, {})) as ListResult;
    const approval = approvals.find((a) => a.id === id);
    if (!approval) {
      io.stderr(`acp-broker: no open approval ${id} (answered, withdrawn, or never opened; acp-broker approvals lists the open ones)\n`);
      return 1;
    }
    const option = chooseOption(approval, action, always);
    if (typeof option === 'string') {
      io.stderr(`acp-broker: ${option}\n`);
      return 1;
    }
    const result = (await connection.link.request(METHODS.answer, { id, optionId: option.optionId })) as AnswerCallResult;
    switch (result.type) {
      case 'accepted': io.stdout(`${action === 'allow' ? 'allowed' : 'denied'} ${id}: ${option.name}\n`); return 0;
      case 'settled': io.stderr(`acp-broker: approval ${id} was already answered elsewhere; nothing changed\n`); return 1;
      case 'unknown': io.stderr(`acp-broker: no open approval ${id}\n`); return 1;
      case 'bad_option': io.stderr(`acp-broker: approval ${id} does not offer ${option.optionId}\n`); return 1;
    }
  });
}

/** allow → allow_once; deny → reject_once; with --always, the broker's own "always" option of that polarity. */
function chooseOption(approval: PendingApproval, action: 'allow' | 'deny', always: boolean): PendingApproval['request']['options'][number] | string {
  const options = approval.request.options;
  if (always) {
    const kind = action === 'allow' ? 'allow_always' : 'reject_always';
    return options.find((o) => o.kind === kind && o.optionId.startsWith('acp-broker:'))
      ?? `approval ${approval.id} offers no "always ${action}" option of the broker's (this request cannot be remembered); answer without --always`;
  }
  const kind = action === 'allow' ? 'allow_once' : 'reject_once';
  return options.find((o) => o.kind === kind) ?? `approval ${approval.id} offers no ${kind} option`;
}

async function withDaemon(io: CommandIo, act: (connection: DaemonConnection) => Promise<number>): Promise<number> {
  const connection = await connectDaemon(daemonLocation().socket, { role: 'control' });
  if (isFailure(connection)) {
    io.stderr(connection.type === 'not_running'
      ? 'acp-broker: no approvals daemon is running (start it with `acp-broker daemon`)\n'
      : `acp-broker: the approvals daemon did not answer as expected: ${connection.detail}\n`);
    return 1;
  }
  try {
    return await act(connection);
  } finally {
    connection.link.destroy();
  }
}

function formatList(approvals: readonly PendingApproval[]): string {
  if (approvals.length === 0) return 'no approvals are waiting\n';
  return approvals.map((a) => {
    const deadline = a.request.deadline ? ` (falls back at ${a.request.deadline})` : '';
    const options = a.request.options.map((o) => `${o.kind}: ${o.name}`).join(' | ');
    return `${a.id}  ${sentence(a)}${deadline}\n    why: ${a.request.reason}\n    options: ${options}\n`;
  }).join('');
}

function port(args: ParsedArgs): number | undefined {
  const value = single(args, '--port');
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new BrokerError('usage', `--port takes a port number (0-65535), not \`${value}\``);
  return n;
}

/** Resolves false once `pid` has exited (polling: it is not our child). */
async function processGone(pid: number): Promise<false> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    }
    await delay(20);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
