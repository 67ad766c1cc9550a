import { ACP } from '../protocol/acp.js';
import type { ChunkScanner } from '../protocol/line-splitter.js';

/**
 * Most traffic (message chunks, plans, usage) needs no inspection; parsing it would be the relay's
 * main cost. A line is parsed only if it could be a message the broker acts on. JSON may escape any
 * character (`\/`, `\u0073`), so a line with escapes is always parsed: skipping is only ever safe.
 *
 * Each needle is a substring of a word the broker acts on (`quest_permission` of
 * `session/request_permission`, `_call` of `tool_call`, …): a line holding the word holds the needle,
 * so a shorter needle only ever inspects more. They are chosen to start with a byte that is rare in
 * ordinary traffic, because `Buffer.indexOf` skips to candidates with memchr on the needle's first
 * byte: `quest_permission` costs 1 µs per 64 KiB of message text where `request_permission` costs
 * 16–18 µs, `"error"` ~50 µs and `rror"` 9 µs.
 */
const bytes = (...words: string[]): readonly Buffer[] => words.map((w) => Buffer.from(w));

/**
 * `session/request_permission`, `tool_call`(`_update`), `fs/…`, `terminal/create`, `$/cancel_request`,
 * `current_mode_update`, `config_option_update`.
 */
const AGENT_NEEDLES = bytes('quest_permission', '_call', 'fs/', '/create', '$/cancel_request', '_mode_update', '_option_update');
/** `initialize`, `session/new|load|resume|cancel`, `$/cancel_request`. */
const CLIENT_NEEDLES = bytes('initialize', 'ssion/', '$/cancel_request');
/** Any of the above spelled with escapes. (`"` cannot hide: an escaped quote delimits nothing.) */
const ESCAPES = bytes('\\u', '\\/');
/** The keys `"result"` and `"error"` of a response, while the broker waits for one from the agent. */
const RESPONSE_NEEDLES = bytes('result"', 'rror"');
/**
 * The key `"outcome"` of the client's answer, or `"error"` of its failure, while escalated permission
 * requests wait for one: either settles the request.
 */
const OUTCOME_NEEDLES = bytes('utcome"', 'rror"');

/** Agent→client requests the broker answers or refuses itself: never forwarded unchecked. */
export const INTERCEPTED_METHODS: ReadonlySet<string> = new Set([ACP.requestPermission, ACP.fsRead, ACP.fsWrite, ACP.terminalCreate]);

/**
 * What a line must hold to be an intercepted request: a method name verbatim, or escapes (for lines
 * too long to parse, see relay/oversized-agent-lines.ts). Each contains an agent needle, so the
 * relay's chunk scanner never clears a line these would flag.
 */
export const INTERCEPT_NEEDLES = [...bytes(...INTERCEPTED_METHODS), ...ESCAPES];

/** The line spells an intercepted method, or has escapes that could spell one. */
export function mayHoldInterceptedRequest(line: Buffer): boolean {
  return containsAny(line, INTERCEPT_NEEDLES);
}

const AGENT_ALWAYS = [...AGENT_NEEDLES, ...ESCAPES];
const AGENT_ALL = [...AGENT_ALWAYS, ...RESPONSE_NEEDLES];
const CLIENT_ALWAYS = [...CLIENT_NEEDLES, ...ESCAPES];
const CLIENT_ALL = [...CLIENT_ALWAYS, ...OUTCOME_NEEDLES];

function containsAny(line: Buffer, needles: readonly Buffer[]): boolean {
  for (const needle of needles) if (line.indexOf(needle) !== -1) return true;
  return false;
}

export function agentLineNeedsInspection(line: Buffer, awaitingResponses: boolean): boolean {
  return containsAny(line, awaitingResponses ? AGENT_ALL : AGENT_ALWAYS);
}

/** `awaitingAnswers`: escalated permission requests wait for the client's answer. */
export function clientLineNeedsInspection(line: Buffer, awaitingAnswers: boolean): boolean {
  return containsAny(line, awaitingAnswers ? CLIENT_ALL : CLIENT_ALWAYS);
}

/**
 * The same decisions over whole chunks, for the relay's fast path: the first offset where a needle
 * starts, judged by the broker's state at each call (it changes when an inspected line is handled).
 */
export function agentChunkScanner(awaitingResponses: () => boolean): ChunkScanner {
  return new NeedleScanner(AGENT_ALL, AGENT_ALWAYS.length, awaitingResponses);
}

export function clientChunkScanner(awaitingAnswers: () => boolean): ChunkScanner {
  return new NeedleScanner(CLIENT_ALL, CLIENT_ALWAYS.length, awaitingAnswers);
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
