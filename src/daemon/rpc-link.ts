/**
 * One JSON-RPC 2.0 peer over a stream socket, newline-delimited: the json-rpc-2.0 package's server
 * and client on one connection, both directions. Frames are checked before the package sees them:
 * an oversized line is never buffered whole nor parsed, garbage and batches get an error answer,
 * and the connection goes on (a peer's bad frame harms only that frame).
 */
import type { Socket } from 'node:net';
import {
  JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient, createJSONRPCErrorResponse,
  type JSONRPCServerMiddleware,
} from 'json-rpc-2.0';
import { LineSplitter } from '../protocol/line-splitter.js';
import { DAEMON_ERRORS, MAX_FRAME_BYTES } from './protocol.js';

export interface RpcLinkOptions {
  readonly maxFrameBytes?: number;
  /** Called once, when the socket is closed from either side. */
  readonly onClose?: () => void;
  /** A frame that was not JSON-RPC (logged by the daemon, counted by tests). */
  readonly onBadFrame?: (why: string) => void;
}

export class RpcLink {
  readonly rpc: JSONRPCServerAndClient<void, void>;
  /** Resolves when the socket has closed, from either side. */
  readonly closed: Promise<void>;
  private isClosed = false;
  private markClosed!: () => void;

  constructor(private readonly socket: Socket, options: RpcLinkOptions = {}) {
    this.closed = new Promise((resolve) => { this.markClosed = resolve; });
    const silent = () => {};
    this.rpc = new JSONRPCServerAndClient(
      new JSONRPCServer({ errorListener: silent }),
      new JSONRPCClient((payload) => { this.write(payload); }),
      { errorListener: silent },
    );
    const maxFrameBytes = options.maxFrameBytes ?? MAX_FRAME_BYTES;
    const bad = (code: number, why: string) => {
      options.onBadFrame?.(why);
      this.write(createJSONRPCErrorResponse(null, code, why));
    };
    const splitter = new LineSplitter({
      line: (bytes) => this.receive(bytes, bad),
      oversized: (_bytes, end) => { if (end) bad(DAEMON_ERRORS.frameTooLarge, `frame over ${maxFrameBytes} bytes`); },
    }, maxFrameBytes);
    socket.on('data', (chunk: Buffer) => splitter.push(chunk));
    socket.on('error', () => { /* 'close' follows */ });
    socket.on('close', () => {
      if (this.isClosed) return;
      this.isClosed = true;
      this.rpc.rejectAllPendingRequests('connection closed');
      options.onClose?.();
      this.markClosed();
    });
  }

  get isOpen(): boolean {
    return !this.isClosed && !this.socket.destroyed;
  }

  addMethod(name: string, method: (params: unknown) => unknown): void {
    this.rpc.addMethod(name, (params) => method(params));
  }

  use(middleware: JSONRPCServerMiddleware<void>): void {
    this.rpc.applyServerMiddleware(middleware);
  }

  request(method: string, params: object): Promise<unknown> {
    if (!this.isOpen) return Promise.reject(new Error('connection closed'));
    return Promise.resolve(this.rpc.request(method, params));
  }

  notify(method: string, params: object): void {
    if (this.isOpen) this.rpc.notify(method, params);
  }

  /** Ends the connection once what was written is flushed. */
  end(): void {
    if (!this.socket.destroyed) this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private write(payload: unknown): void {
    if (!this.isOpen || !this.socket.writable) return;
    this.socket.write(`${JSON.stringify(payload)}\n`);
  }

  private receive(bytes: Buffer, bad: (code: number, why: string) => void): void {
    const text = bytes.toString('utf8').trim();
    if (text === '') return;
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      bad(DAEMON_ERRORS.parseError, 'Parse error: a frame must be one JSON object');
      return;
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      bad(DAEMON_ERRORS.invalidRequest, 'Invalid Request: a frame must be one JSON-RPC object (no batches)');
      return;
    }
    const message = payload as Record<string, unknown>;
    const id = message.id;
    const validId = id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
    const isRequest = message.jsonrpc === '2.0' && typeof message.method === 'string' && validId;
    const isResponse = message.jsonrpc === '2.0' && message.method === undefined && validId && id !== undefined && ('result' in message || 'error' in message);
    if (!isRequest && !isResponse) {
      bad(DAEMON_ERRORS.invalidRequest, 'Invalid Request: not a JSON-RPC 2.0 request or response');
      return;
    }
    this.rpc.receiveAndSend(payload, undefined, undefined).then(undefined, () => { /* answered by the package, or nothing to answer */ });
  }
}
