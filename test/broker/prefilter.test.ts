import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Prefilter } from '../../src/broker/prefilter.js';
import { INTERCEPTED_METHODS } from '../../src/protocol/acp.js';
import { INTERCEPT_NEEDLES } from '../../src/protocol/intercepted-lines.js';
import { classify } from '../../src/protocol/jsonrpc.js';
import { LineSplitter, type ChunkScanner } from '../../src/protocol/line-splitter.js';
import { ALLOW_ALL, harness, policyFrom } from '../helpers/harness.js';

// The prefilters of the broker as it runs: built from what its handlers declared.
const { broker } = await harness(await policyFrom(ALLOW_ALL));
const agentInterests = broker.interests('agent');
const clientInterests = broker.interests('client');
const agentLineNeedsInspection = (line: Buffer, awaiting: boolean) => new Prefilter(agentInterests, () => awaiting).needsInspection(line);
const clientLineNeedsInspection = (line: Buffer, awaiting: boolean) => new Prefilter(clientInterests, () => awaiting).needsInspection(line);
const agentChunkScanner = (awaiting: () => boolean) => new Prefilter(agentInterests, awaiting).chunkScanner();
const clientChunkScanner = (awaiting: () => boolean) => new Prefilter(clientInterests, awaiting).chunkScanner();

// Skipping a line unparsed is only ever safe if no message the broker acts on can be skipped, in any
// JSON spelling; and the relay's chunk-level fast path must decide exactly as the per-line prefilter.

/** JSON text for `value` where every string character may be spelled raw, as `\uXXXX`, or '/' as `\/`. */
function spell(value: unknown, choices: () => number): string {
  if (typeof value === 'string') {
    let out = '"';
    for (const ch of value) {
      const c = choices();
      if (c === 1 && ch.length === 1) out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
      else if (c === 2 && ch === '/') out += '\\/';
      else out += JSON.stringify(ch).slice(1, -1);
    }
    return `${out}"`;
  }
  if (Array.isArray(value)) return `[${value.map((v) => spell(v, choices)).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${spell(k, choices)}:${spell(v, choices)}`).join(',')}}`;
  return JSON.stringify(value);
}

/** A JSON spelling of `value`: `weights` picks raw (0), `\u` (1) or `\/` (2) per character, from a seed. */
const spelled = (value: unknown) => fc.tuple(fc.integer(), fc.constantFrom(0, 0, 0, 1, 2)).map(([seed, bias]) => {
  let s = seed;
  const choices = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    // Mostly raw; sometimes every character escaped where possible.
    return bias === 0 ? 0 : s % 7 === 0 ? bias : 0;
  };
  return spell(value, choices);
});

const ACTED_ON_BY_AGENT = fc.oneof(
  fc.constantFrom(...INTERCEPTED_METHODS).map((method) => ({ jsonrpc: '2.0', id: 1, method, params: { sessionId: 's', path: '/p' } })),
  fc.constantFrom('tool_call', 'tool_call_update').map((sessionUpdate) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate, toolCallId: 't' } } })),
  fc.constant({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 1 } }),
);
const RESPONSE = fc.oneof(fc.constant({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } }), fc.constant({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } }));

describe('prefilter: never skips a message the broker acts on, in any JSON spelling', () => {
  it('agent → client', () => {
    fc.assert(fc.property(ACTED_ON_BY_AGENT.chain(spelled), (line) => {
      expect(classify(JSON.parse(line)).type).not.toBe('other');
      expect(agentLineNeedsInspection(Buffer.from(`${line}\n`), false)).toBe(true);
    }), { numRuns: 2000, seed: 1 });
    fc.assert(fc.property(RESPONSE.chain(spelled), (line) => {
      expect(agentLineNeedsInspection(Buffer.from(`${line}\n`), true)).toBe(true);
    }), { numRuns: 500, seed: 2 });
  });

  it('client → agent', () => {
    const actedOn = fc.oneof(
      fc.constantFrom('initialize', 'session/new', 'session/load', 'session/resume').map((method) => ({ jsonrpc: '2.0', id: 1, method, params: { cwd: '/w' } })),
      fc.constant({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } }),
    );
    fc.assert(fc.property(actedOn.chain(spelled), (line) => {
      expect(clientLineNeedsInspection(Buffer.from(`${line}\n`), false)).toBe(true);
    }), { numRuns: 1000, seed: 3 });
    const answer = fc.constantFrom('selected', 'cancelled').map((outcome) => ({ jsonrpc: '2.0', id: 1, result: { outcome: { outcome, optionId: 'o' } } }));
    fc.assert(fc.property(answer.chain(spelled), (line) => {
      expect(clientLineNeedsInspection(Buffer.from(`${line}\n`), true)).toBe(true);
    }), { numRuns: 500, seed: 4 });
  });

  it('ordinary message chunks are not inspected', () => {
    const chunk = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"token 1 of the answer"}}}}\n';
    expect(agentLineNeedsInspection(Buffer.from(chunk), false)).toBe(false);
    expect(agentLineNeedsInspection(Buffer.from(chunk), true)).toBe(false);
  });

  it('every needle for oversized lines holds an agent needle, so the fast path never clears what they flag', () => {
    for (const needle of INTERCEPT_NEEDLES) expect(agentLineNeedsInspection(needle, false)).toBe(true);
  });
});

/** Lines with and without needles, some that switch the state, some long enough to straddle many chunks. */
const LINE = fc.oneof(
  { weight: 6, arbitrary: fc.nat(1000).map((i) => `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"text":"token ${i}"}}}}`) },
  { weight: 2, arbitrary: fc.constantFrom('{"id":1,"result":{}}', '{"id":2,"error":{}}', '{"id":3,"result":{"outcome":{}}}') },
  { weight: 1, arbitrary: fc.constantFrom(...INTERCEPTED_METHODS, 'tool_call', '$/cancel_request', 'initialize', 'session/new', 'a\\u0062', 'a\\/b').map((m) => `{"method":"${m}"}`) },
  { weight: 1, arbitrary: fc.constant('{"method":"session/update","params":{"update":{"sessionUpdate":"tool_call"}},"toggle":1}') },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 60_000, max: 140_000 }), fc.constantFrom('', 'tool_call', 'fs/', '\\u', 'result"', 'outcome"', 'session/'), fc.nat())
    .map(([n, needle, at]) => { const pad = 'x'.repeat(n); const i = at % n; return `{"text":"${pad.slice(0, i)}${needle}${pad.slice(i)}"}`; }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }).map((s) => s.replace(/\n/g, ' ')) },
);

/**
 * Relay `lines` as `chunks` through a splitter, the handler inspecting a line when `needs` says so
 * (an inspected `"toggle"` line flips the state the scanner and `needs` read). Returns the bytes that
 * went out and the lines that were inspected.
 */
function relay(bytes: Buffer, cuts: number[], needs: (line: Buffer, state: boolean) => boolean, scannerFor?: (state: () => boolean) => ChunkScanner, maxLineBytes = 1 << 30) {
  let state = false;
  const out: Buffer[] = [];
  const inspected: string[] = [];
  const onLine = (line: Buffer) => {
    if (needs(line, state)) {
      inspected.push(line.toString('latin1'));
      if (line.includes('"toggle"')) state = !state;
    }
    out.push(Buffer.from(line));
  };
  const fastPath = scannerFor ? { scanner: scannerFor(() => state), cleared: (b: Buffer) => out.push(Buffer.from(b)) } : undefined;
  const splitter = new LineSplitter({ line: onLine, oversized: (b) => out.push(Buffer.from(b)) }, maxLineBytes, fastPath);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    // A fresh buffer per chunk, as a stream hands them over.
    const chunk = Buffer.from(bytes.subarray(at, Math.max(at, cut)));
    splitter.push(chunk);
    at = Math.max(at, cut);
  }
  splitter.end();
  return { out: Buffer.concat(out), inspected };
}

function cutsOf(length: number, sizes: number[]): number[] {
  const cuts: number[] = [];
  let at = 0;
  for (let i = 0; at < length; i++) cuts.push((at += sizes[i % sizes.length]!));
  return cuts;
}

describe('the chunk-level fast path decides exactly as the per-line prefilter', () => {
  for (const [name, needs, scannerFor] of [
    ['agent', agentLineNeedsInspection, agentChunkScanner],
    ['client', clientLineNeedsInspection, clientChunkScanner],
  ] as const) {
    it(`${name}: same bytes out, same lines inspected, in the same state, however the stream is cut`, () => {
      fc.assert(fc.property(
        fc.array(LINE, { minLength: 1, maxLength: 120 }), fc.boolean(), fc.array(fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 200_000 })), { minLength: 1, maxLength: 8 }),
        (lines, finalNewline, sizes) => {
          const bytes = Buffer.from(lines.join('\n') + (finalNewline ? '\n' : ''), 'latin1');
          const cuts = cutsOf(bytes.length, sizes);
          const reference = relay(bytes, cuts, needs);
          const fast = relay(bytes, cuts, needs, scannerFor);
          expect(fast.out.equals(bytes)).toBe(true);
          expect(reference.out.equals(bytes)).toBe(true);
          expect(fast.inspected).toEqual(reference.inspected);
        },
      ), { numRuns: 300, seed: name === 'agent' ? 11 : 12 });
    });
  }

  it('finds a needle split across the pieces of a long line at every offset, even in one-byte pieces', () => {
    for (const needle of ['tool_call', 'quest_permission', '\\u', 'fs/']) {
      const line = Buffer.from(`{"text":"${'x'.repeat(70_000)}${needle}${'x'.repeat(70_000)}"}\n`);
      const at = line.indexOf(needle);
      for (let k = 0; k <= needle.length; k++) {
        for (const cuts of [[at + k], [at + k - 1, at + k, at + k + 1]]) {
          const { out, inspected } = relay(line, cuts, agentLineNeedsInspection, agentChunkScanner);
          expect(out.equals(line)).toBe(true);
          expect(inspected).toHaveLength(1);
        }
      }
    }
  });

  it('a line judged in pieces is judged as the whole line, however it is cut, with the scanner reused', () => {
    // One scanner for every case, as the relay keeps one per direction: its scratch room for the
    // seams between pieces must carry nothing from one line to the next.
    let awaiting = false;
    const scanner = agentChunkScanner(() => awaiting);
    const needleText = fc.constantFrom('', 'tool_call', 'quest_permission', 'fs/', '/create', '_upda', '\\u', '\\/', 'result"', 'rror"', 'utcome"', 'tool_ca', 'ool_call', 'fs', 's/');
    const text = fc.array(fc.oneof(fc.constantFrom('x', 'xxxxxxxx', '_', '/', 'f', 'q', '\\', '"'), needleText), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(fc.property(text, fc.array(fc.nat(60), { maxLength: 12 }), fc.boolean(), (line, cutAt, awaits) => {
      awaiting = awaits;
      const bytes = Buffer.from(line, 'latin1');
      const cuts = [...new Set(cutAt.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
      const pieces: Buffer[] = [];
      let at = 0;
      for (const cut of [...cuts, bytes.length]) {
        pieces.push(Buffer.from(bytes.subarray(at, cut)));
        at = cut;
      }
      expect(scanner.lineNeedsLook(pieces)).toBe(agentLineNeedsInspection(bytes, awaits));
    }), { numRuns: 2000, seed: 14 });
  });

  it('lines over the maximum: cleared whole when nothing in them needs a look, else handed on as oversized', () => {
    const plain = `{"text":"${'x'.repeat(300)}"}`;
    const request = `{"id":1,"method":"fs/write_text_file","params":{"content":"${'x'.repeat(300)}"}}`;
    const bytes = Buffer.from(['a', plain, 'b', request, 'c', ''].join('\n'));
    const oversized: string[] = [];
    const cleared: string[] = [];
    const lines: string[] = [];
    const splitter = new LineSplitter(
      { line: (l) => lines.push(l.toString()), oversized: (b, end) => oversized.push(`${b.toString()}${end ? '|' : ''}`) },
      100, { scanner: agentChunkScanner(() => false), cleared: (b) => cleared.push(b.toString()) },
    );
    splitter.push(bytes);
    splitter.end();
    expect(cleared).toEqual([`a\n${plain}\nb\n`, 'c\n']);
    expect(oversized).toEqual([`${request}\n|`]);
    expect(lines).toEqual([]);
  });
});
