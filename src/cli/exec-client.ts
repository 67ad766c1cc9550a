import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '../protocol/line-splitter.js';
import { classify, encode, idKey, type RpcId } from '../protocol/jsonrpc.js';

export interface HeadlessResult {
  readonly stopReason: string | undefined;
  readonly error: string | undefined;
}

/**
 * A minimal headless ACP client: initialize → session/new → session/prompt, agent text streamed to
 * `onText`. It offers no fs or terminal capability, so the agent uses its own tools and asks for
 * permission; anything that still reaches it is refused (nobody is there to answer).
 */
export function runHeadlessClient(options: {
  toAgent: Writable;
  fromAgent: Readable;
  cwd: string;
  prompt: string;
  onText: (text: string) => void;
  /** Every `session/update`'s `update`, as the agent sent it. */
  onUpdate?: (update: unknown) => void;
  /** The session began; `agentInfo` as `initialize` gave it. */
  onSession?: (sessionId: string, agentInfo: unknown) => void;
  onLog: (line: string) => void;
}): Promise<HeadlessResult> {
  const pending = new Map<string, (message: { result?: unknown; error?: unknown }) => void>();
  let nextId = 0;
  const request = (method: string, params: unknown) => new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
    const id = nextId++;
    pending.set(idKey(id), resolve);
    options.toAgent.write(encode({ jsonrpc: '2.0', id, method, params }));
  });
  const respond = (id: RpcId, body: { result: unknown } | { error: unknown }) => options.toAgent.write(encode({ jsonrpc: '2.0', id, ...body }));

  return new Promise<HeadlessResult>((resolve) => {
    let finished = false;
    const finish = (result: HeadlessResult) => { if (!finished) { finished = true; resolve(result); } };
    const splitter = new LineSplitter({
      line: (bytes) => {
        let parsed: unknown;
        try { parsed = JSON.parse(bytes.toString('utf8')); } catch { return; }
        const message = classify(parsed);
        if (message.type === 'response') {
          const waiter = pending.get(idKey(message.id));
          pending.delete(idKey(message.id));
          waiter?.({ result: message.result, error: message.error });
        } else if (message.type === 'notification' && message.method === 'session/update') {
          const update = (message.params as { update?: { sessionUpdate?: string; content?: { type?: string; text?: string }; title?: string } }).update;
          options.onUpdate?.(update);
          if (update?.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text' && update.content.text) options.onText(update.content.text);
        } else if (message.type === 'request') {
          if (message.method === 'session/request_permission') {
            // Reaches us only if the broker escalated in non-interactive mode, which it never does; refuse.
            const opts = (message.params as { options?: { optionId: string; kind: string }[] }).options ?? [];
            const reject = opts.find((o) => o.kind === 'reject_once') ?? opts.find((o) => o.kind === 'reject_always');
            respond(message.id, { result: { outcome: reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' } } });
          } else {
            respond(message.id, { error: { code: -32601, message: `Method not found: ${message.method}` } });
          }
        }
      },
      oversized: () => {},
    });
    options.fromAgent.on('data', (chunk: Buffer) => splitter.push(chunk));
    options.fromAgent.on('end', () => finish({ stopReason: undefined, error: 'the agent closed the connection' }));

    void (async () => {
      const init = await request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'acp-broker-exec', title: 'acp-broker exec', version: '0.1.0' },
      });
      if (init.error) return finish({ stopReason: undefined, error: `initialize failed: ${JSON.stringify(init.error)}` });
      const session = await request('session/new', { cwd: options.cwd, mcpServers: [] });
      const sessionId = (session.result as { sessionId?: string } | undefined)?.sessionId;
      if (!sessionId) return finish({ stopReason: undefined, error: `session/new failed: ${JSON.stringify(session.error ?? session.result)}` });
      options.onLog(`session ${sessionId} in ${options.cwd}`);
      options.onSession?.(sessionId, (init.result as { agentInfo?: unknown } | undefined)?.agentInfo);
      const prompt = await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: options.prompt }] });
      if (prompt.error) return finish({ stopReason: undefined, error: `session/prompt failed: ${JSON.stringify(prompt.error)}` });
      finish({ stopReason: (prompt.result as { stopReason?: string } | undefined)?.stopReason, error: undefined });
    })();
  });
}
