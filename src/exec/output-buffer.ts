/**
 * A terminal's output, keeping at most `limit` bytes: when more arrives, the oldest bytes go (the
 * protocol's `outputByteLimit` truncates from the beginning), and what is returned starts and ends
 * at a UTF-8 character boundary, even if that keeps a few bytes less than the limit.
 */
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > this.limit) {
      const first = this.chunks[0]!;
      const excess = this.bytes - this.limit;
      this.dropped = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
      }
    }
  }

  /** Whether bytes were dropped to stay within the limit. */
  get truncated(): boolean {
    return this.dropped;
  }

  text(): string {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    const all = this.chunks[0] ?? Buffer.alloc(0);
    return all.subarray(this.dropped ? leadingContinuationBytes(all) : 0, completeLength(all)).toString('utf8');
  }
}

/** Bytes at the start that continue a character whose first byte was dropped. */
function leadingContinuationBytes(bytes: Buffer): number {
  let n = 0;
  while (n < bytes.length && n < 3 && (bytes[n]! & 0xc0) === 0x80) n++;
  return n;
}

/** The length without a character still being written at the end. */
function completeLength(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
