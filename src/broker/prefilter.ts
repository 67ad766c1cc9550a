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
  /** For each byte value, the indexes of the needles that start with it. */
  private readonly startingWith: (readonly number[] | undefined)[] = [];

  constructor(private readonly needles: readonly Buffer[], private readonly always: number, private readonly extra: () => boolean) {
    this.nextHit = needles.map(() => UNKNOWN);
    this.seamBytes = Math.max(...needles.map((n) => n.length)) - 1;
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
    // The line's last `seamBytes` bytes so far: with the start of the next piece, that covers every
    // needle that crosses into it, however small the pieces.
    let tail: Buffer = Buffer.alloc(0);
    for (const piece of pieces) {
      const seam = Buffer.concat([tail, piece.subarray(0, this.seamBytes)]);
      for (let i = 0; i < count; i++) {
        if (piece.indexOf(this.needles[i]!) !== -1 || seam.indexOf(this.needles[i]!) !== -1) return true;
      }
      tail = piece.length >= this.seamBytes ? piece.subarray(piece.length - this.seamBytes) : Buffer.concat([tail, piece]).subarray(-this.seamBytes);
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
