/**
 * The daemon's socket: one connection per broker (or control command), each a JSON-RPC peer that
 * must say hello first. Brokers open and withdraw approvals; the registry sends answers back on the
 * connection the approval came from. A broker that disconnects takes its approvals with it.
 */
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { JSONRPCErrorException, createJSONRPCErrorResponse } from 'json-rpc-2.0';
import type { AnswerChannel } from '../escalation/channel.js';
import { ApprovalsRegistry, MAX_OPEN_PER_BROKER, type BrokerPeer } from './registry.js';
import { RpcLink } from './rpc-link.js';
import {
  DAEMON_ERRORS, METHODS, PROTOCOL_VERSION, checkAnswer, checkApprovalRequest, checkHello, checkWithdraw,
  type DaemonStatus, type HelloParams, type ReturnedParams, type WireAnswer,
} from './protocol.js';

export interface ApprovalsServerOptions {
  readonly socketPath: string;
  readonly registry: ApprovalsRegistry;
  /** The inbox's address, once it runs. */
  readonly inbox: () => string | null;
  readonly startedAt: string;
  /** A control peer asked the daemon to stop. */
  readonly onStopRequest: () => void;
  readonly log: (message: string) => void;
  readonly maxFrameBytes?: number;
}

export class ApprovalsServer {
  private readonly server: Server;
  private readonly links = new Set<RpcLink>();
  private brokers = 0;
  private nextKey = 1;

  constructor(private readonly options: ApprovalsServerOptions) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Listens; the socket file is made private to the user. Rejects with the listen error (EADDRINUSE, …). */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const previous = process.platform === 'win32' ? undefined : process.umask(0o177);
      const onError = (error: Error) => { restore(); reject(error); };
      const restore = () => { if (previous !== undefined) process.umask(previous); };
      this.server.once('error', onError);
      this.server.listen(this.options.socketPath, () => {
        restore();
        this.server.off('error', onError);
        if (process.platform !== 'win32') chmodSync(this.options.socketPath, 0o600);
        resolve();
      });
    });
  }

  status(): DaemonStatus {
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    return {
      heapUsed: memory.heapUsed, rss: memory.rss,
      protocol: PROTOCOL_VERSION, pid: process.pid, socket: this.options.socketPath, inbox: this.options.inbox(),
      startedAt: this.options.startedAt, brokers: this.brokers, pending: this.options.registry.size,
    };
  }

  /** Hands every open approval back to its broker, then closes every connection and the socket. */
  async close(): Promise<void> {
    this.options.registry.returnAll();
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const link of this.links) link.end();
    const forced = setTimeout(() => { for (const link of this.links) link.destroy(); }, 1000);
    await closing;
    clearTimeout(forced);
    if (process.platform !== 'win32') rmSync(this.options.socketPath, { force: true });
  }

  private accept(socket: Socket): void {
    let hello: HelloParams | undefined;
    let peer: BrokerPeer | undefined;
    const link: RpcLink = new RpcLink(socket, {
      maxFrameBytes: this.options.maxFrameBytes,
      onBadFrame: (why) => this.options.log(`bad frame from ${describe(hello)}: ${why}`),
      onClose: () => {
        this.links.delete(link);
        if (peer) {
          this.brokers--;
          this.options.registry.dropPeer(peer);
        }
      },
    });
    this.links.add(link);
    link.use(async (next, request, params) => {
      if (hello === undefined && request.method !== METHODS.hello) {
        return request.id === undefined ? null : createJSONRPCErrorResponse(request.id, DAEMON_ERRORS.helloFirst, 'say hello first');
      }
      return next(request, params);
    });
    link.addMethod(METHODS.hello, (params) => {
      const checked = valid(checkHello(params));
      if (checked.protocol !== PROTOCOL_VERSION) {
        setImmediate(() => link.end());
        throw new JSONRPCErrorException(`protocol ${checked.protocol} is not supported; this daemon speaks ${PROTOCOL_VERSION}`, DAEMON_ERRORS.unsupportedProtocol);
      }
      if (hello !== undefined) throw new JSONRPCErrorException('hello was already said', DAEMON_ERRORS.invalidRequest);
      hello = checked;
      if (checked.role === 'broker') {
        this.brokers++;
        peer = this.brokerPeer(link, checked);
      }
      return { protocol: PROTOCOL_VERSION, pid: process.pid, inbox: this.options.inbox() };
    });
    link.addMethod(METHODS.open, (params) => {
      if (!peer) throw new JSONRPCErrorException('only a broker opens approvals', DAEMON_ERRORS.invalidRequest);
      const opened = this.options.registry.add(peer, valid(checkApprovalRequest(params)));
      if (opened.type === 'duplicate') throw new JSONRPCErrorException('this approvalId is already open or was settled', DAEMON_ERRORS.duplicateApproval);
      if (opened.type === 'too_many') throw new JSONRPCErrorException(`this broker already has ${MAX_OPEN_PER_BROKER} open approvals`, DAEMON_ERRORS.tooMany);
      return { id: opened.id };
    });
    link.addMethod(METHODS.withdraw, (params) => {
      if (!peer) return { withdrawn: false };
      const checked = valid(checkWithdraw(params));
      const reason = checked.reason === 'answered' && checked.via ? `answered via ${checked.via}` : checked.reason;
      return { withdrawn: this.options.registry.withdraw(peer, checked.approvalId, reason) };
    });
    // Without the diffs, which can be large: 1,000 approvals must fit in one frame.
    link.addMethod(METHODS.list, () => ({
      approvals: this.options.registry.pending().map((a) => (a.request.diffs.length === 0 ? a : { ...a, request: { ...a.request, diffs: [] } })),
    }));
    link.addMethod(METHODS.answer, (params) => {
      const { id, optionId } = valid(checkAnswer(params));
      return this.options.registry.answer(id, optionId, 'terminal');
    });
    link.addMethod(METHODS.status, () => this.status());
    link.addMethod(METHODS.stop, () => {
      setImmediate(() => this.options.onStopRequest());
      return { stopping: true };
    });
  }

  private brokerPeer(link: RpcLink, hello: HelloParams): BrokerPeer {
    return {
      key: String(this.nextKey++),
      pid: hello.pid,
      agent: hello.agent,
      answered: (approvalId: string, answer: WireAnswer, via: Exclude<AnswerChannel, 'client'>) => link.notify(METHODS.answered, { approvalId, answer, via }),
      returned: (approvalId: string) => link.notify(METHODS.returned, { approvalId, reason: 'daemon_stopping' } satisfies ReturnedParams),
    };
  }
}

function valid<T>(checked: T | string): T {
  if (typeof checked === 'string') throw new JSONRPCErrorException(`Invalid params: ${checked}`, DAEMON_ERRORS.invalidParams);
  return checked;
}

function describe(hello: HelloParams | undefined): string {
  if (!hello) return 'a peer before hello';
  return `${hello.role} pid ${hello.pid ?? '?'}${hello.agent ? ` (${hello.agent})` : ''}`;
}
