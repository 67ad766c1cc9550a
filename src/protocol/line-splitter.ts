/**
 * Splits a byte stream into newline-delimited lines without copying more than needed. A line is
 * delivered with its trailing '\n' so the relay can forward the original bytes unchanged.
 *
 * A line longer than `maxLineBytes` is not buffered: its bytes are handed to `oversized` as they
 * arrive, so memory stays bounded whatever the peer sends. Such a line is never parsed; what the sink
 * does with it is its own business (the relay checks agent lines for intercepted requests and breaks
 * those: see relay/oversized-agent-lines.ts).
 *
 * With a fast path, the complete lines inside one chunk are not split one by one: a `ChunkScanner`
 * points at the first place something may need a look, the lines before it go on as one `cleared`
 * piece, the line holding it goes to `line`, and the scan resumes after that line (asking again: the
 * line may have changed what needs a look). A line that straddled chunks is judged from its pieces
 * (`lineNeedsLook`): the pieces go on as they are if nothing needs a look, else the joined line to `line`.
 */
export interface LineSink {
  /** A complete line, including its '\n' (absent only for a final unterminated line at end of stream). */
  line(bytes: Buffer): void;
  /** Bytes of a line over the maximum, in arrival order; `end` is true on its last piece. */
  oversized(bytes: Buffer, end: boolean): void;
}

/**
 * Finds where, in one chunk, a line may need per-line handling. It may point at too much but never
 * too little: every line before the offset it returns is passed on without a look, so it must return
 * a hit inside any line `line` would handle differently from forwarding it. (Hits must not span a
 * '\n': then the hit's line is the one to look at, and a chunk's complete lines are judged apart from
 * the partial line at its end.)
 */
export interface ChunkScanner {
  /** The chunk the following `next` calls are about; its bytes do not change until the next `begin`. */
  begin(chunk: Buffer): void;
  /** The first offset ≥ `from` (which only grows between two `begin`s) that may need a look; -1 if none. */
  next(from: number): number;
  /** The same judgement for one line that arrived in these pieces (a match may span pieces). */
  lineNeedsLook(pieces: readonly Buffer[]): boolean;
}

export interface FastPath {
  readonly scanner: ChunkScanner;
  /**
   * Bytes of lines the scanner found nothing in, in order: complete lines, several at a time, or the
   * pieces of a line that straddled chunks. They may include lines over the maximum: nothing in
   * them needs a look, so they go on whole, as `oversized` pieces would.
   */
  readonly cleared: (bytes: Buffer) => void;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private streamingOversized = false;

  constructor(private readonly sink: LineSink, private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES, private readonly fastPath?: FastPath) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    let start = 0;
    if (this.streamingOversized || this.pendingBytes > 0) {
      const newline = chunk.indexOf(10);
      if (newline === -1) {
        this.keep(chunk);
        return;
      }
      this.completeLine(chunk.subarray(0, newline + 1));
      start = newline + 1;
    }
    if (this.fastPath) start = this.pushScanned(chunk, start, this.fastPath);
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.keep(chunk.subarray(start));
        return;
      }
      this.deliver(chunk.subarray(start, newline + 1));
      start = newline + 1;
    }
  }

  /** End of stream: a final line without '\n' is still delivered, byte-exact. */
  end(): void {
    if (this.streamingOversized) {
      this.streamingOversized = false;
      this.sink.oversized(Buffer.alloc(0), true);
    } else if (this.pendingBytes > 0) {
      const whole = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      this.sink.line(whole);
    }
  }

  /**
   * The complete lines of `chunk` from `start` on, through the fast path; returns where the partial
   * line at the chunk's end begins.
   */
  private pushScanned(chunk: Buffer, start: number, { scanner, cleared }: FastPath): number {
    const end = chunk.lastIndexOf(10) + 1;
    if (end <= start) return start;
    scanner.begin(chunk);
    while (start < end) {
      let hit = scanner.next(start);
      if (hit === -1 || hit >= end) {
        cleared(chunk.subarray(start, end));
        return end;
      }
      // A scanner pointing behind `start` breaks its contract: look at the line at hand, never loop.
      if (hit < start) hit = start;
      // `start` begins a line, so the line holding the hit begins at or after it.
      const lineStart = hit === start ? start : chunk.lastIndexOf(10, hit - 1) + 1;
      if (lineStart > start) cleared(chunk.subarray(start, lineStart));
      const lineEnd = chunk.indexOf(10, hit) + 1;
      this.deliver(chunk.subarray(lineStart, lineEnd));
      start = lineEnd;
    }
    return end;
  }

  /** A line that arrived whole in one chunk. */
  private deliver(line: Buffer): void {
    if (line.length > this.maxLineBytes) this.sink.oversized(line, true);
    else this.sink.line(line);
  }

  /** The end of a line begun in an earlier chunk: `piece` runs to its '\n'. */
  private completeLine(piece: Buffer): void {
    if (this.streamingOversized) {
      this.streamingOversized = false;
      this.sink.oversized(piece, true);
      return;
    }
    if (this.pendingBytes + piece.length > this.maxLineBytes) {
      this.flushOversized(piece, true);
      return;
    }
    const pieces = this.pending;
    const bytes = this.pendingBytes + piece.length;
    pieces.push(piece);
    this.pending = [];
    this.pendingBytes = 0;
    // A line that straddled chunks is checked piece by piece and, if nothing in it needs a look,
    // forwarded in its pieces, whatever its length: no join, and no per-line path through the broker
    // for the line that ends in almost every chunk of a busy stream (bench/RESULTS.md, "Issue 14,
    // fourth session").
    const fastPath = this.fastPath;
    if (fastPath && !fastPath.scanner.lineNeedsLook(pieces)) {
      for (const p of pieces) fastPath.cleared(p);
    } else {
      this.sink.line(Buffer.concat(pieces, bytes));
    }
  }

  private keep(rest: Buffer): void {
    if (this.streamingOversized) {
      this.sink.oversized(rest, false);
      return;
    }
    if (this.pendingBytes + rest.length > this.maxLineBytes) {
      this.flushOversized(rest, false);
      return;
    }
    // A view, not a copy: a readable stream hands over each chunk for good and never writes to its
    // memory again (Node's own streams allocate every chunk afresh; `pipe()` relies on it too).
    this.pending.push(rest);
    this.pendingBytes += rest.length;
  }

  private flushOversized(piece: Buffer, end: boolean): void {
    for (const held of this.pending) this.sink.oversized(held, false);
    this.pending = [];
    this.pendingBytes = 0;
    this.sink.oversized(piece, end);
    this.streamingOversized = !end;
  }
}
