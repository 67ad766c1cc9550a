/**
 * Splits a byte stream into newline-delimited lines without copying more than needed. A line is
 * delivered with its trailing '\n' so the relay can forward the original bytes unchanged.
 * A line longer than `maxLineBytes` is not buffered: its bytes are handed on as they arrive
 * (uninspected), so memory stays bounded whatever the peer sends.
 */
export interface LineSink {
  /** A complete line, including its '\n' (absent only for a final unterminated line at end of stream). */
  line(bytes: Buffer): void;
  /** Bytes of a line over the maximum, in arrival order; `end` is true on its last piece. */
  oversized(bytes: Buffer, end: boolean): void;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private streamingOversized = false;

  constructor(private readonly sink: LineSink, private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.keep(chunk.subarray(start));
        return;
      }
      const piece = chunk.subarray(start, newline + 1);
      start = newline + 1;
      if (this.streamingOversized) {
        this.streamingOversized = false;
        this.sink.oversized(piece, true);
      } else if (this.pendingBytes === 0) {
        if (piece.length > this.maxLineBytes) this.sink.oversized(piece, true);
        else this.sink.line(piece);
      } else if (this.pendingBytes + piece.length > this.maxLineBytes) {
        this.flushOversized(piece, true);
      } else {
        this.pending.push(piece);
        const whole = Buffer.concat(this.pending, this.pendingBytes + piece.length);
        this.pending = [];
        this.pendingBytes = 0;
        this.sink.line(whole);
      }
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

  private keep(rest: Buffer): void {
    if (this.streamingOversized) {
      this.sink.oversized(rest, false);
      return;
    }
    if (this.pendingBytes + rest.length > this.maxLineBytes) {
      this.flushOversized(rest, false);
      return;
    }
    // Copy: the chunk's memory may be reused by the stream after this call.
    this.pending.push(Buffer.from(rest));
    this.pendingBytes += rest.length;
  }

  private flushOversized(piece: Buffer, end: boolean): void {
    const head = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.sink.oversized(head, false);
    this.sink.oversized(piece, end);
    this.streamingOversized = !end;
  }
}
