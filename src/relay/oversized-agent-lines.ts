import { INTERCEPTED_METHODS } from '../protocol/acp.js';
import { INTERCEPT_NEEDLES } from '../protocol/intercepted-lines.js';
import { topLevelIdAndMethod, trailingTopLevelId } from '../protocol/json-head.js';
import { encode, RPC_ERRORS } from '../protocol/jsonrpc.js';

/** Inserted into each match: a raw control byte, which JSON allows nowhere. */
const POISON = 0x01;
const LONGEST = Math.max(...INTERCEPT_NEEDLES.map((n) => n.length));
/** How much of the line's start (and end) is kept to find its id and method. */
const HEAD_BYTES = 4096;
const TAIL_BYTES = 4096;
const STEP_BYTES = 64 * 1024;

/**
 * Agent lines over the maximum line size stream through to the client in pieces, unparsed, so that
 * memory stays bounded. They must still never carry an intercepted request (a permission request,
 * an fs or terminal call) past the broker unchecked. So while such a line streams it is scanned for
 * the intercepted method names and for escapes that could spell one, across piece boundaries, and a
 * control byte is inserted into every match before it leaves: a raw control byte is invalid anywhere
 * in JSON, so the client cannot parse the line, and no intercepted method is spelled in it any more.
 * At the line's end the broker warns on stderr and, if the line's first KiB show a request for an
 * intercepted method and its first or last KiB its id, refuses it to the agent with an error. A line without a match
 * passes byte-identical.
 */
export class OversizedAgentLines {
  private readonly carry = Buffer.alloc(LONGEST - 1);
  private carryBytes = 0;
  private readonly head = Buffer.alloc(HEAD_BYTES);
  private headBytes = 0;
  /** The line's last bytes: agents such as codex-acp write `id` after `params`. */
  private tail = Buffer.alloc(0);
  private lineBytes = 0;
  private matches = 0;

  constructor(private readonly deps: {
    readonly maxLineBytes: number;
    /** `end` on the line's last bytes: the line is open at the client until then. */
    readonly toClient: (bytes: Buffer, end: boolean) => void;
    readonly toAgent: (bytes: Buffer) => void;
    readonly warn: (message: string) => void;
  }) {}

  /** The next piece of an oversized line; `end` on its last (which holds its '\n', if it has one). */
  piece(bytes: Buffer, end: boolean): void {
    this.headBytes += bytes.copy(this.head, this.headBytes, 0, HEAD_BYTES - this.headBytes);
    this.tail = bytes.length >= TAIL_BYTES
      ? Buffer.from(bytes.subarray(bytes.length - TAIL_BYTES))
      : Buffer.concat([this.tail.subarray(Math.max(0, this.tail.length + bytes.length - TAIL_BYTES)), bytes]);
    // Bounded steps, so that the positions of matches in one step stay few whatever the piece's size.
    for (let at = 0; at < bytes.length; at += STEP_BYTES) this.relay(bytes.subarray(at, at + STEP_BYTES), end && at + STEP_BYTES >= bytes.length);
    if (end && bytes.length === 0) this.deps.toClient(bytes, true);
    if (end) this.lineEnded();
  }

  private relay(bytes: Buffer, last: boolean): void {
    this.lineBytes += bytes.length;
    const marks = this.matchEnds(bytes);
    this.remember(bytes);
    if (marks.length === 0) return this.deps.toClient(bytes, last);
    this.matches += marks.length;
    marks.sort((a, b) => a - b);
    const out = Buffer.allocUnsafe(bytes.length + marks.length);
    let from = 0;
    let to = 0;
    for (const mark of marks) {
      to += bytes.copy(out, to, from, mark);
      out[to++] = POISON;
      from = mark;
    }
    bytes.copy(out, to, from);
    this.deps.toClient(out, last);
  }

  /** Offsets in `bytes` of the last byte of every match ending there, including matches begun earlier. */
  private matchEnds(bytes: Buffer): number[] {
    const marks: number[] = [];
    for (const needle of INTERCEPT_NEEDLES) {
      for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) marks.push(at + needle.length - 1);
    }
    if (this.carryBytes === 0) return marks;
    // Matches that begin in the bytes before this piece and end in it.
    const seam = Buffer.concat([this.carry.subarray(0, this.carryBytes), bytes.subarray(0, LONGEST - 1)]);
    for (const needle of INTERCEPT_NEEDLES) {
      for (let at = seam.indexOf(needle); at !== -1 && at < this.carryBytes; at = seam.indexOf(needle, at + 1)) {
        const last = at + needle.length - 1;
        if (last >= this.carryBytes) marks.push(last - this.carryBytes);
      }
    }
    return marks;
  }

  /** Keep the line's last LONGEST-1 bytes, where a match may begin that ends in the next piece. */
  private remember(bytes: Buffer): void {
    const keep = this.carry.length;
    if (bytes.length >= keep) {
      this.carryBytes = bytes.copy(this.carry, 0, bytes.length - keep);
      return;
    }
    const old = Math.min(this.carryBytes, keep - bytes.length);
    this.carry.copyWithin(0, this.carryBytes - old, this.carryBytes);
    this.carryBytes = old + bytes.copy(this.carry, old);
  }

  private lineEnded(): void {
    const { lineBytes, matches } = this;
    const head = this.head.subarray(0, this.headBytes);
    const tail = this.tail;
    this.tail = Buffer.alloc(0);
    this.carryBytes = this.headBytes = this.lineBytes = this.matches = 0;
    if (matches === 0) return;
    const fromHead = topLevelIdAndMethod(head);
    const method = fromHead.method;
    const id = fromHead.id !== undefined ? fromHead.id : trailingTopLevelId(tail);
    const what = `an agent line of ${lineBytes} bytes, over the maximum line size of ${this.deps.maxLineBytes} bytes,`;
    if (method !== undefined && INTERCEPTED_METHODS.has(method) && id !== undefined) {
      this.deps.warn(`acp-broker: ${what} is a ${method} request (id ${JSON.stringify(id)}) too large to check: it was made unparseable for the client and refused`);
      this.deps.toAgent(encode({
        jsonrpc: '2.0', id,
        error: { code: RPC_ERRORS.internalError, message: `acp-broker refused this ${method} request: its line (${lineBytes} bytes) exceeds the maximum line size (${this.deps.maxLineBytes} bytes), so it cannot be checked` },
      }));
      return;
    }
    this.deps.warn(`acp-broker: ${what} names an intercepted method or uses escapes and could not be checked: it was made unparseable for the client`);
  }
}
