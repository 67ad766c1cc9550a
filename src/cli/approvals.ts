import { basename } from 'node:path';
import { parseApprovalsMode } from '../escalation/approvals-mode.js';
import type { AnswerChannel, EscalationChannel, Offer, OfferCallbacks, OfferedRequest } from '../escalation/channel.js';
import { single, type ParsedArgs } from './args.js';

/** What `run` and `exec` hold of the approvals daemon: a channel for the broker, closed at the end. */
export interface ApprovalsChannel extends EscalationChannel {
  close(): void;
}

/**
 * The approvals daemon as an escalation channel for `run` and `exec` (`--approvals`, default auto).
 * `after`: in auto mode the daemon's client (and its JSON-RPC package) loads only then — `run` passes
 * the start-up gate, so the agent's boot is not slowed; escalations before it reach the editor alone.
 * `daemon` mode connects at once and fails with one clear line when none runs; `exec` waits too, so
 * that its first ask finds the daemon.
 */
export async function approvalsChannel(args: ParsedArgs, stderr: (s: string) => void, options: { after?: Promise<unknown> } = {}): Promise<ApprovalsChannel | undefined> {
  const mode = parseApprovalsMode(single(args, '--approvals'));
  if (mode === 'off') return undefined;
  const agent = agentName(args.agent);
  const log = (message: string) => stderr(`acp-broker: ${message}\n`);
  const connect = async () => (await import('../escalation/daemon-channel.js')).connectApprovals(mode, { agent, log });
  if (mode === 'daemon' || options.after === undefined) return connect();
  const late = new LateChannel();
  options.after.then(connect).then((channel) => late.attach(channel), (error: unknown) => log(`the approvals daemon is not used: ${(error as Error)?.message ?? String(error)}`));
  return late;
}

/** A channel that takes offers once its daemon client has loaded; until then it takes none. */
class LateChannel implements ApprovalsChannel {
  readonly name = 'daemon';
  readonly answersAs: readonly AnswerChannel[] = ['desktop', 'web', 'terminal'];
  private inner: ApprovalsChannel | undefined;
  private closed = false;

  attach(channel: ApprovalsChannel | undefined): void {
    if (this.closed) channel?.close();
    else this.inner = channel;
  }

  offer(request: OfferedRequest, callbacks: OfferCallbacks): Offer | undefined {
    return this.inner?.offer(request, callbacks);
  }

  close(): void {
    this.closed = true;
    this.inner?.close();
  }
}

/** Programs that run the agent rather than being it: the script they run names it. */
const INTERPRETERS = new Set(['node', 'nodejs', 'npx', 'bun', 'bunx', 'deno', 'python', 'python3', 'uv', 'uvx', 'pnpm', 'yarn', 'env']);

/**
 * The agent's name until it gives its own at `initialize`: its command's name, or for
 * `node …/dist/index.js` the package or script it runs (`claude-agent-acp`), never "node".
 */
export function agentName(command: readonly string[]): string | undefined {
  const words = command.filter((word) => !word.startsWith('-'));
  const first = words[0];
  if (first === undefined) return undefined;
  if (!INTERPRETERS.has(basename(first))) return basename(first);
  const script = words[1];
  if (script === undefined) return basename(first);
  // `…/node_modules/@scope/name/dist/index.js` → name; `…/agent.mjs` → agent.
  const inPackage = /node_modules\/(?:@[^/]+\/)?([^/]+)\//.exec(script);
  return inPackage ? inPackage[1] : basename(script).replace(/\.(c|m)?[jt]s$|\.py$/, '');
}

