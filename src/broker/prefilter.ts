import type { ChunkScanner } from '../protocol/line-splitter.js';
import type { Interest, Word } from './handler.js';

/**
 * Most traffic (message chunks, plans, usage) needs no inspection; parsing it would be the relay's
 * main cost. A line is parsed only if it could be a message a handler declared (handler.ts): it holds
 * one of their words' needles. JSON may escape any character (`\/`, `\u0073`), so a line with escapes
 * is always parsed: skipping is only ever safe. Needles of awaited responses count only while some
 * handler awaits one.
 */
const ESCAPES: readonly string[] = ['\\u', '\\/'];

/** The needle of a word, checked to be a substring of it: a line holding the word holds the needle. */
export function needleOf(word: Word): string {
  const needle = word.needle ?? word.word;
  if (needle === '' || !word.word.includes(needle)) throw new Error(`prefilter: the needle ${JSON.stringify(needle)} is not part of ${JSON.stringify(word.word)}`);
  return needle;
}

/** One direction's prefilter: the lines worth parsing, by line (`needsInspection`) and over chunks (`chunkScanner`). */
export class Prefilter {
  private readonly always: readonly Buffer[];
  private readonly all: readonly Buffer[];

  /** `awaiting`: whether any handler awaits a response now (its response needles then count). */
  constructor(interests: readonly Interest[], private readonly awaiting: () => boolean) {
    const always = new Set<string>(ESCAPES);
    const responses = new Set<string>();
    for (const interest of interests) {
      for (const method of interest.methods ?? []) always.add(needleOf(method));
      for (const word of interest.responses ?? []) responses.add(needleOf(word));
    }
    this.always = [...always].map((n) => Buffer.from(n));
    this.all = [...this.always, ...[...responses].filter((n) => !always.has(n)).map((n) => Buffer.from(n))];
  }

  needsInspection(line: Buffer): boolean {
    for (const needle of this.awaiting() ? this.all : this.always) if (line.indexOf(needle) !== -1) return true;
    return false;
  }

  /** The same decisions over whole chunks, for the relay's fast path. */
  chunkScanner(): ChunkScanner {
    return new NeedleScanner(this.all, this.always.length, this.awaiting);
  }
}

const UNKNOWN = -2;
/**
 * Below this many bytes, one pass in JavaScript over a table of the needles' first bytes beats one
 * native `indexOf` per needle (~75 ns of call overhead each): the common case of an agent that writes
 * each message separately, read one or a few at a time.
 */
const SMALL_SCAN_BYTES = 1024;

/**
 * Finds the earliest of several needles in one chunk. It remembers each needle's next hit, so that
 * scanning a chunk in steps (`from` only grows) costs one pass per needle, however many lines hit.
 * Needles past `always` count only while `extra()` holds.
 */
class NeedleScanner implements ChunkScanner {
  private chunk: Buffer = Buffer.alloc(0);
  private readonly nextHit: number[];
  /** The bytes before a piece boundary where a needle crossing it may begin. */
  private readonly seamBytes: number;
  /** Scratch room for the bytes on both sides of a boundary between pieces (lineNeedsLook). */
  private readonly seam: Buffer;
  /** For each byte value, the indexes of the needles that start with it. */
  private readonly startingWith: (readonly number[] | undefined)[] = [];

  constructor(private readonly needles: readonly Buffer[], private readonly always: number, private readonly extra: () => boolean) {
    this.nextHit = needles.map(() => UNKNOWN);
    this.seamBytes = Math.max(...needles.map((n) => n.length)) - 1;
    this.seam = Buffer.alloc(2 * this.seamBytes);
    for (let b = 0; b < 256; b++) {
      const indexes = needles.flatMap((n, i) => (n[0] === b ? [i] : []));
      this.startingWith.push(indexes.length > 0 ? indexes : undefined);
    }
  }

  begin(chunk: Buffer): void {
    this.chunk = chunk;
    this.nextHit.fill(UNKNOWN);
  }

  next(from: number): number {
    const count = this.count();
    if (this.chunk.length - from <= SMALL_SCAN_BYTES) return this.firstHitByteByByte(from, count);
    let first = -1;
    for (let i = 0; i < count; i++) {
      let at = this.nextHit[i]!;
      // A remembered hit before `from` is used up; -1 (none after an earlier `from`) stays true.
      if (at === UNKNOWN || (at !== -1 && at < from)) at = this.nextHit[i] = this.chunk.indexOf(this.needles[i]!, from);
      if (at !== -1 && (first === -1 || at < first)) first = at;
    }
    return first;
  }

  private firstHitByteByByte(from: number, count: number): number {
    const { chunk, needles, startingWith } = this;
    for (let at = from; at < chunk.length; at++) {
      const candidates = startingWith[chunk[at]!];
      if (candidates === undefined) continue;
      for (const i of candidates) if (i < count && startsAt(chunk, at, needles[i]!)) return at;
    }
    return -1;
  }

  lineNeedsLook(pieces: readonly Buffer[]): boolean {
    const count = this.count();
    const { needles, seamBytes, seam } = this;
    // seam[0, tailBytes): the line's last `seamBytes` bytes so far. With the start of the next piece
    // copied after them, that covers every needle that crosses into it, however small the pieces.
    // Copies into one scratch buffer, not a Buffer.concat per piece: this runs for each piece of every
    // long line, and the concats made it one of the stream's costliest compiles (RESULTS.md, "Issue
    // 14, fourth session").
    let tailBytes = 0;
    for (const piece of pieces) {
      for (let i = 0; i < count; i++) if (piece.indexOf(needles[i]!) !== -1) return true;
      if (tailBytes > 0) {
        const window = seam.subarray(0, tailBytes + piece.copy(seam, tailBytes, 0, seamBytes));
        for (let i = 0; i < count; i++) if (window.indexOf(needles[i]!) !== -1) return true;
      }
      if (piece.length >= seamBytes) {
        tailBytes = piece.copy(seam, 0, piece.length - seamBytes);
      } else {
        const kept = Math.min(tailBytes, seamBytes - piece.length);
        seam.copyWithin(0, tailBytes - kept, tailBytes);
        tailBytes = kept + piece.copy(seam, kept);
      }
    }
    return false;
  }

  private count(): number {
    return this.extra() ? this.needles.length : this.always;
  }
}

function startsAt(bytes: Buffer, at: number, needle: Buffer): boolean {
  if (at + needle.length > bytes.length) return false;
  for (let j = 1; j < needle.length; j++) if (bytes[at + j] !== needle[j]) return false;
  return true;
}
