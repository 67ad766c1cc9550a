/**
 * `acp-broker daemon`: one per user. Finds out whether one already runs (then reports it and exits
 * 0), replaces a stale socket, listens, starts the notifications and the web inbox, and on SIGINT,
 * SIGTERM or `daemon stop` hands every open approval back to its broker before it exits.
 */
import { existsSync, rmSync } from 'node:fs';
import { BrokerError } from '../core/errors.js';
import { connectDaemon, isFailure } from './client.js';
import { publicAddress, startWebInbox, type RunningInbox } from './inbox-start.js';
import { daemonLocation, preparePrivateDir, removeInfo, writeInfo, type DaemonLocation } from './location.js';
import { Notifications, type Notifier } from './notifications.js';
import { nodeNotifier } from './desktop-notifier.js';
import { METHODS, PROTOCOL_VERSION, type DaemonStatus } from './protocol.js';
import { ApprovalsRegistry } from './registry.js';
import { ApprovalsServer } from './server.js';
import { withStartLock } from './start-lock.js';

export interface DaemonOptions {
  readonly port: number | undefined;
  readonly desktop: boolean;
  readonly web: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly notifier?: Notifier;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

type Probe =
  | { readonly type: 'running'; readonly status: DaemonStatus }
  | { readonly type: 'none' }
  /** Something answers on the socket but not as this daemon (another version): left alone. */
  | { readonly type: 'other'; readonly detail: string };

export async function runDaemon(options: DaemonOptions): Promise<number> {
  const log = (message: string) => options.stderr(`acp-broker daemon: ${message}\n`);
  const location = daemonLocation(options.env);
  preparePrivateDir(location.dir);
  const registry = new ApprovalsRegistry();
  let inbox: RunningInbox | undefined;
  let stopping: Promise<void> | undefined;
  let stopped!: () => void;
  // A stop asked for while the daemon is still starting waits until it has started.
  let earlyStop: string | undefined;
  let requestStop = (why: string) => { earlyStop ??= why; };
  const done = new Promise<void>((resolve) => { stopped = resolve; });
  const startedAt = new Date().toISOString();
  const server = new ApprovalsServer({
    socketPath: location.socket, registry, startedAt, log,
    inbox: () => inbox?.url ?? null,
    onStopRequest: () => requestStop('stop requested'),
  });
  const onSignal = (signal: NodeJS.Signals) => requestStop(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const running = await withStartLock(location.dir, () => claimSocket(server, location, log));
  if (running) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    options.stdout(describeRunning(running));
    return 0;
  }
  if (options.web) {
    const started = await startWebInbox(registry, options.port, log);
    if (started.type === 'running') inbox = started.inbox;
    else log(`the web inbox did not start: ${started.message}; answer with \`acp-broker approvals\``);
  }
  const notifications = options.desktop
    ? new Notifications({
      view: registry, notifier: options.notifier ?? nodeNotifier(), warn: (m) => log(`warning: ${m}`),
      hint: () => ({ inbox: inbox ? publicAddress(inbox.url) : null }),
    })
    : undefined;
  writeInfo(location, { protocol: PROTOCOL_VERSION, pid: process.pid, socket: location.socket, inbox: inbox?.url ?? null, startedAt });

  const stop = (why: string): Promise<void> => {
    stopping ??= (async () => {
      log(`stopping (${why}); handing ${registry.size} open approval(s) back to their brokers`);
      notifications?.close();
      await server.close();
      await inbox?.close();
      removeInfo(location, process.pid);
      stopped();
    })();
    return stopping;
  };
  requestStop = (why) => { void stop(why); };
  if (earlyStop !== undefined) requestStop(earlyStop);
  log(`pid ${process.pid} listening on ${location.socket}${inbox ? `; inbox ${publicAddress(inbox.url)}` : ''}`);
  await done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return 0;
}

/** Listens on the socket, unless a daemon already runs there: then its status. */
async function claimSocket(server: ApprovalsServer, location: DaemonLocation, log: (m: string) => void): Promise<DaemonStatus | undefined> {
  const probe = await probeRunning(location);
  if (probe.type === 'running') return probe.status;
  if (probe.type === 'other') throw otherListener(location, probe.detail);
  if (await listenReplacingStale(server, location, log)) return undefined;
  const again = await probeRunning(location);
  if (again.type === 'running') return again.status;
  throw again.type === 'other' ? otherListener(location, again.detail)
    : new BrokerError('spawn_failed', `cannot listen on ${location.socket}: another process holds it`);
}

/** Listens; a socket file nobody answers on is a crashed daemon's, removed and listened on again. */
async function listenReplacingStale(server: ApprovalsServer, location: DaemonLocation, log: (m: string) => void): Promise<boolean> {
  try {
    await server.listen();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
  }
  if (process.platform === 'win32' || (await probeRunning(location)).type !== 'none') return false;
  log(`replacing the stale socket ${location.socket} (its daemon is gone)`);
  rmSync(location.socket, { force: true });
  try {
    await server.listen();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return false;
    throw error;
  }
}

export async function probeRunning(location: DaemonLocation): Promise<Probe> {
  if (process.platform !== 'win32' && !existsSync(location.socket)) return { type: 'none' };
  const connection = await connectDaemon(location.socket, { role: 'control', timeoutMs: 2000 });
  if (isFailure(connection)) return connection.type === 'not_running' ? { type: 'none' } : { type: 'other', detail: connection.detail };
  try {
    return { type: 'running', status: (await connection.link.request(METHODS.status, {})) as DaemonStatus };
  } catch (error) {
    return { type: 'other', detail: (error as Error)?.message ?? String(error) };
  } finally {
    connection.link.destroy();
  }
}

function otherListener(location: DaemonLocation, detail: string): BrokerError {
  return new BrokerError('spawn_failed', `something other than this daemon's version answers on ${location.socket} (${detail}); stop it first`);
}

/** One line about the running daemon; the inbox without its token (`acp-broker inbox` opens it with the token). */
export function describeRunning(status: DaemonStatus): string {
  return `acp-broker daemon is running: pid ${status.pid}, socket ${status.socket}, inbox ${status.inbox === null ? 'none' : publicAddress(status.inbox)}; `
    + `${status.brokers} broker(s) connected, ${status.pending} approval(s) open\n`;
}
