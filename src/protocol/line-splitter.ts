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
 * line may have changed what needs a look). Lines that straddle chunks always go to `line`.
 */
export interface LineSink {
  /** A complete line, including its '\n' (absent only for a final unterminated line at end of stream). */
  line(bytes: Buffer): void;
  /**
   * Bytes of a line over the maximum, in arrival order; `end` is true on its last piece. With
   * `alreadySent`, the bytes already went on as a long line's streamed start (FastPath.streaming)
   * before the line outgrew the maximum: they are the line's, to be taken into account, not sent again.
   */
  oversized(bytes: Buffer, end: boolean, alreadySent?: boolean): void;
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
  /**
   * A judgement of one long line piece by piece, as it arrives, by every needle whatever the state
   * (the state may change while the line streams): `add` tells whether the line with that piece
   * added may need a look.
   */
  longLine(): { add(piece: Buffer): boolean };
}

export interface FastPath {
  readonly scanner: ChunkScanner;
  /**
   * Bytes of lines the scanner found nothing in, in order: complete lines, several at a time, or the
   * pieces of a long line that straddled chunks. They may include lines over the maximum: nothing in
   * them needs a look, so they go on whole, as `oversized` pieces would.
   */
  readonly cleared: (bytes: Buffer) => void;
  /**
   * Long lines sent on as they arrive. A line that straddles chunks is held until its end, except
   * once it reaches STREAM_AFTER_BYTES with nothing in it needing a look: then its bytes so far go
   * to `piece` and so does each later piece while that stays true (`end` on the one holding its
   * '\n', or at end of stream). If a later piece needs a look, the rest is held and the whole line
   * goes to `partlySent` with the count of its bytes already sent; it is not handed to `line`.
   */
  readonly streaming?: {
    readonly piece: (bytes: Buffer, end: boolean) => void;
    readonly partlySent: (line: Buffer, sent: number) => void;
  };
}

/**
 * How much of a line straddling chunks is held before it may start streaming: holding a long line
 * whole stalls the reader behind it (bench/RESULTS.md, "Issue 14: long lines stream"), while the
 * start of a short one is as cheap to hold as to send.
 */
export const STREAM_AFTER_BYTES = 64 * 1024;

/**
 * A line at least this long that straddled chunks is checked piece by piece and, if nothing in it
 * needs a look, forwarded in its pieces: joining them would cost a fresh allocation and a copy.
 * Shorter ones are cheaper to join than to check in pieces.
 */
const PIECEWISE_BYTES = 64 * 1024;

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** What becomes of the line begun in an earlier chunk. */
type Course =
  | { readonly kind: 'held' }
  /** Something in its first STREAM_AFTER_BYTES needed a look: held to its end, not tried again. */
  | { readonly kind: 'held-for-good' }
  /** Streaming: its first `sentPieces` pending pieces went on; `interrupted` once one needed a look. */
  | { readonly kind: 'streaming'; readonly check: { add(piece: Buffer): boolean }; sentPieces: number; sentBytes: number; interrupted: boolean };

const HELD: Course = { kind: 'held' };

export class LineSplitter {
  /** The pieces of the line begun in an earlier chunk: held, or kept after streaming for a late look. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private course: Course = HELD;
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
      this.completeLine(Buffer.alloc(0));
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

  /** The end of a line begun in an earlier chunk: `piece` runs to its '\n' (empty at end of stream). */
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
    const course = this.course;
    const pieces = this.pending;
    if (piece.length > 0) pieces.push(piece);
    const bytes = this.pendingBytes + piece.length;
    this.pending = [];
    this.pendingBytes = 0;
    this.course = HELD;
    const fastPath = this.fastPath;
    if (course.kind === 'streaming') {
      if (!course.interrupted && (piece.length === 0 || !course.check.add(piece))) return fastPath!.streaming!.piece(piece, true);
      return fastPath!.streaming!.partlySent(Buffer.concat(pieces, bytes), course.sentBytes);
    }
    if (fastPath && bytes >= PIECEWISE_BYTES && !fastPath.scanner.lineNeedsLook(pieces)) {
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
    const course = this.course;
    if (course.kind === 'streaming') {
      if (course.interrupted || course.check.add(rest)) {
        course.interrupted = true;
        return;
      }
      course.sentPieces++;
      course.sentBytes += rest.length;
      this.fastPath!.streaming!.piece(rest, false);
    } else if (course.kind === 'held' && this.pendingBytes >= STREAM_AFTER_BYTES && this.fastPath?.streaming) {
      this.startStreaming(this.fastPath.scanner, this.fastPath.streaming);
    }
  }

  /** The line held so far reached STREAM_AFTER_BYTES: it streams from now on if nothing in it needs a look. */
  private startStreaming(scanner: ChunkScanner, streaming: NonNullable<FastPath['streaming']>): void {
    const check = scanner.longLine();
    for (const piece of this.pending) {
      if (check.add(piece)) {
        this.course = { kind: 'held-for-good' };
        return;
      }
    }
    this.course = { kind: 'streaming', check, sentPieces: this.pending.length, sentBytes: this.pendingBytes, interrupted: false };
    for (const piece of this.pending) streaming.piece(piece, false);
  }

  private flushOversized(piece: Buffer, end: boolean): void {
    const sentPieces = this.course.kind === 'streaming' ? this.course.sentPieces : 0;
    this.pending.forEach((held, i) => this.sink.oversized(held, false, i < sentPieces));
    this.pending = [];
    this.pendingBytes = 0;
    this.course = HELD;
    this.sink.oversized(piece, end);
    this.streamingOversized = !end;
  }
}
