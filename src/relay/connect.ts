import type { Readable, Writable } from 'node:stream';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, type ChunkScanner } from '../protocol/line-splitter.js';

export interface Pump {
  /** Stop reading the source for good; a partial line already read is still delivered, then `onEnd`. */
  stop(): void;
}

/**
 * Writes to one stream, batched while a chunk is being relayed. Lines forwarded unchanged are views
 * into the chunk they arrived in, so consecutive ones are adjacent in memory: they are merged back
 * into one view. What a batch wrote leaves when it ends, a write per buffer (a line that straddled
 * chunks, then the rest of the chunk); those that must wait for the peer the stream sends as one
 * `writev`. A chunk of a thousand small lines costs one write, not a thousand, and the bytes are the
 * very bytes that arrived. Outside a batch, writes go straight out.
 *
 * While a line is open — its start written, its end not yet (a line over the maximum, which streams
 * through in pieces) — nothing else may reach the peer inside it: other writes wait until it closes.
 */
export class BatchWriter {
  private pending: Buffer[] = [];
  private depth = 0;
  private open = false;
  private waiting: Buffer[] = [];

  constructor(readonly stream: Writable) {}

  write(bytes: Buffer): void {
    if (this.open) this.waiting.push(bytes);
    else this.put(bytes);
  }

  /** The start, or a further piece, of a line whose end is still to come. */
  openLine(bytes: Buffer): void {
    this.open = true;
    this.put(bytes);
  }

  /** The last piece of the open line (its '\n', unless the stream ended); the writes that waited follow. */
  closeLine(bytes: Buffer): void {
    this.put(bytes);
    this.open = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) this.put(w);
  }

  private put(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.depth === 0) return safeWrite(this.stream, bytes);
    const last = this.pending[this.pending.length - 1];
    if (last && last.buffer === bytes.buffer && last.byteOffset + last.length === bytes.byteOffset) {
      this.pending[this.pending.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + bytes.length);
      return;
    }
    this.pending.push(bytes);
  }

  /** Open a batch: writes wait until `end` closes the outermost one, then leave in order. */
  begin(): void {
    this.depth++;
  }

  end(): void {
    if (--this.depth === 0) this.flush();
  }

  private flush(): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    if (this.stream.destroyed || this.stream.writableEnded) return;
    // One write each, uncorked: the first leaves at once, and the stream gathers any that must wait
    // for the peer into one writev itself (bench/RESULTS.md, "Issue 14, fourth session").
    for (const bytes of pending) this.stream.write(bytes);
  }
}

/**
 * Feed a byte stream line by line to `onLine`. With a `scanner`, the lines of a chunk in which it
 * finds nothing skip `onLine` and go to `sink` unchanged, several at a time (see LineSplitter).
 * Lines over the maximum go to `oversized` piece by piece, by default straight to `sink`
 * uninspected. Backpressure: while `sink` needs draining, the source is paused. `onEnd` runs once,
 * when the source ends, fails or is stopped. Each chunk is relayed inside a batch of every writer
 * in `batches` (the sink's and the other direction's, since an answer may go back the other way).
 */
export function pumpLines(options: {
  source: Readable;
  sink: BatchWriter;
  onLine: (line: Buffer) => void;
  onEnd: () => void;
  maxLineBytes?: number;
  scanner?: ChunkScanner;
  /** Pieces of lines over the maximum (see LineSink.oversized); by default sent on uninspected. */
  oversized?: (bytes: Buffer, end: boolean) => void;
  batches?: readonly BatchWriter[];
  /** Bytes read from `source` before this pump existed (the start of a line), relayed first. */
  initial?: Buffer;
  /** `source` had already ended before this pump existed: its 'end' will not fire again. */
  alreadyEnded?: boolean;
  /** Told of every chunk read: real work is under way (background work yields to it). */
  onData?: () => void;
}): Pump {
  const { source, sink } = options;
  const forward = (bytes: Buffer) => sink.write(bytes);
  const splitter = new LineSplitter(
    { line: options.onLine, oversized: options.oversized ?? ((bytes, end) => (end ? sink.closeLine(bytes) : sink.openLine(bytes))) },
    options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    options.scanner ? { scanner: options.scanner, cleared: forward } : undefined,
  );
  const batches = options.batches ?? [sink];
  // Each chunk is relayed inside every writer's batch, opened in order and closed in reverse (each
  // close runs even if one before it threw), with no closure per chunk (bench/RESULTS.md, "Issue 14,
  // fourth session").
  const beginAll = (): void => { for (const writer of batches) writer.begin(); };
  const endFrom = (i: number): void => {
    try {
      batches[i]!.end();
    } finally {
      if (i > 0) endFrom(i - 1);
    }
  };
  // `work(chunk)`, not a closure over the chunk: this runs for every chunk.
  const inBatches = (work: (chunk: Buffer) => void, chunk: Buffer): void => {
    beginAll();
    try {
      work(chunk);
    } finally {
      endFrom(batches.length - 1);
    }
  };
  const push = (chunk: Buffer) => splitter.push(chunk);
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    inBatches(() => splitter.end(), NO_BYTES);
    options.onEnd();
  };
  const resume = () => { if (!ended) source.resume(); };
  const onData = options.onData;
  source.on('data', (chunk: Buffer) => {
    onData?.();
    inBatches(push, chunk);
    if (sink.stream.writableNeedDrain && !source.isPaused()) {
      source.pause();
      sink.stream.once('drain', resume);
    }
  });
  if (options.initial && options.initial.length > 0) inBatches(push, options.initial);
  if (options.alreadyEnded) {
    finish();
    return { stop: () => {} };
  }
  source.on('end', finish);
  // A failed or closed source is an end too: whoever waits for it must not wait forever.
  source.on('error', finish);
  source.on('close', finish);
  return {
    stop: () => {
      if (ended) return;
      source.removeAllListeners('data');
      source.destroy();
      finish();
    },
  };
}

const NO_BYTES = Buffer.alloc(0);

/** Write without throwing on a closed peer; the lifecycle code notices closes separately. */
function safeWrite(stream: Writable, bytes: Buffer): void {
  if (stream.destroyed || stream.writableEnded) return;
  stream.write(bytes);
}
