/**
 * Connecting to the running daemon's socket and saying hello: shared by brokers (the daemon
 * channel) and the control commands (`daemon status|stop`, `approvals`).
 */
import { connect } from 'node:net';
import { RpcLink, type RpcLinkOptions } from './rpc-link.js';
import { METHODS, PROTOCOL_VERSION, type HelloResult, type PeerRole } from './protocol.js';

const CONTROL_MAX_FRAME_BYTES = 64 * 1024 * 1024;

export type ConnectFailure =
  /** Nothing listens: no daemon, or a stale socket left by one that crashed. */
  | { readonly type: 'not_running'; readonly detail: string }
  /** Something listens but does not speak this protocol. */
  | { readonly type: 'incompatible'; readonly detail: string };

export interface DaemonConnection {
  readonly link: RpcLink;
  readonly hello: HelloResult;
}

export interface ConnectOptions extends RpcLinkOptions {
  readonly role: PeerRole;
  readonly agent?: string | undefined;
  /** The whole attempt (connect and hello) gives up after this long. */
  readonly timeoutMs?: number;
  /** Methods the daemon may call on this peer, added before hello so nothing is missed. */
  readonly methods?: Readonly<Record<string, (params: unknown) => unknown>>;
  /** The connection alone does not keep the process alive (a broker exits when its agent does). */
  readonly unref?: boolean;
}

export function connectDaemon(socketPath: string, options: ConnectOptions): Promise<DaemonConnection | ConnectFailure> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: DaemonConnection | ConnectFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if ('type' in result) socket.destroy();
      resolve(result);
    };
    const socket = connect(socketPath);
    if (options.unref) socket.unref();
    const timer = setTimeout(() => finish({ type: 'incompatible', detail: `no hello from ${socketPath} within ${options.timeoutMs ?? 2000} ms` }), options.timeoutMs ?? 2000);
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ type: 'not_running', detail: error.code ?? error.message }));
    socket.once('connect', () => {
      // A control command trusts the daemon's replies, whose lists may be long.
      const link = new RpcLink(socket, { ...options, maxFrameBytes: options.maxFrameBytes ?? (options.role === 'control' ? CONTROL_MAX_FRAME_BYTES : undefined) });
      for (const [name, method] of Object.entries(options.methods ?? {})) link.addMethod(name, method);
      link.request(METHODS.hello, { protocol: PROTOCOL_VERSION, role: options.role, pid: process.pid, agent: options.agent }).then(
        (result) => {
          const hello = result as Partial<HelloResult> | null;
          if (hello?.protocol !== PROTOCOL_VERSION || typeof hello.pid !== 'number') {
            finish({ type: 'incompatible', detail: `the daemon answered hello with ${JSON.stringify(result)}` });
            return;
          }
          finish({ link, hello: { protocol: hello.protocol, pid: hello.pid, inbox: typeof hello.inbox === 'string' ? hello.inbox : null } });
        },
        (error: unknown) => finish({ type: 'incompatible', detail: (error as Error)?.message ?? String(error) }),
      );
    });
  });
}

export function isFailure(result: DaemonConnection | ConnectFailure): result is ConnectFailure {
  return 'type' in result;
}
