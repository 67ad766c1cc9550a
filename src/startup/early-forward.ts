import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

// Deliberately light, free of imports: this module loads before the relay.

/** What the early forwarder did with the client's input, handed to the relay when it takes over. */
export interface EarlyClientInput {
  /** Complete lines already written to the agent, in order: the broker observes them, never forwards them again. */
  readonly forwarded: readonly Buffer[];
  /** The start of a line not yet complete, not forwarded: the relay's first bytes. */
  readonly rest: Buffer;
  /** The client's input had already ended. */
  readonly ended: boolean;
}

/** Early forwarding stops (the rest waits for the relay) once this much has been forwarded. */
const EARLY_FORWARD_LIMIT = 1024 * 1024;

/**
 * Until the relay has loaded, the client's complete lines go straight to the agent: the editor's
 * `initialize` then reaches the agent while it boots instead of after the broker has loaded. Safe
 * because nothing from the client can need a decision before the broker has seen a line from the
 * agent (there is nothing yet to answer or cancel), and the agent's output waits in its pipe for
 * the relay. The broker later observes the forwarded lines (session/new and the like) in order,
 * before the first agent line. Returns the hand-over: forwarding stops when it is called.
 */
export function forwardClientEarly(clientIn: Readable, child: ChildProcess): () => EarlyClientInput {
  const forwarded: Buffer[] = [];
  let forwardedBytes = 0;
  let rest = Buffer.alloc(0);
  let ended = false;
  let paused = false;
  const onData = (chunk: Buffer) => {
    const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let lastNewline = data.lastIndexOf(10);
    // A line the relay must judge (a mode switch) stops forwarding: it and what follows wait for it.
    const judged = firstJudgedLine(data, lastNewline + 1);
    const stop = judged !== -1;
    if (stop) lastNewline = judged - 1;
    // Copies: the stream may reuse a chunk's memory once this handler returns.
    rest = Buffer.from(data.subarray(lastNewline + 1));
    if (lastNewline !== -1) {
      const lines = Buffer.from(data.subarray(0, lastNewline + 1));
      forwarded.push(lines);
      forwardedBytes += lines.length;
      child.stdin?.write(lines);
    }
    if (stop || forwardedBytes + rest.length >= EARLY_FORWARD_LIMIT) {
      // Enough held in memory: the client waits for the relay.
      clientIn.off('data', onData);
      clientIn.pause();
      paused = true;
    }
  };
  const onEnd = () => { ended = true; };
  clientIn.on('data', onData);
  clientIn.once('end', onEnd);
  // The relay attaches its own listener in the same turn as this hand-over, so no chunk falls between.
  return () => {
    clientIn.off('data', onData);
    clientIn.off('end', onEnd);
    if (paused) clientIn.resume();
    return { forwarded: splitLines(forwarded), rest, ended };
  };
}

/**
 * Client requests the broker may refuse (broker/modes.ts): spelled out, or with escapes that could
 * spell them. Kept here, free of imports: this module loads before the relay.
 */
const JUDGED_NEEDLES = ['set_mode', 'set_config_option', '\\u', '\\/'].map((needle) => Buffer.from(needle));

/** Where the first complete line (before `end`) holding a judged request starts, or -1. */
function firstJudgedLine(data: Buffer, end: number): number {
  let first = -1;
  for (const needle of JUDGED_NEEDLES) {
    const at = data.indexOf(needle);
    if (at !== -1 && at < end && (first === -1 || at < first)) first = at;
  }
  return first === -1 ? -1 : data.lastIndexOf(10, first) + 1;
}

function splitLines(blocks: readonly Buffer[]): Buffer[] {
  const lines: Buffer[] = [];
  for (const block of blocks) {
    for (let start = 0; start < block.length;) {
      const end = block.indexOf(10, start) + 1;
      lines.push(block.subarray(start, end));
      start = end;
    }
  }
  return lines;
}
