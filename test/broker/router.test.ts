import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Handler, Incoming, RequestOrNotification } from '../../src/broker/handler.js';
import { Outbox } from '../../src/broker/outbox.js';
import { needleOf } from '../../src/broker/prefilter.js';
import { ReadinessGate } from '../../src/broker/readiness.js';
import { Router } from '../../src/broker/router.js';
import { INTERCEPTED_METHODS } from '../../src/protocol/acp.js';
import { LineSplitter } from '../../src/protocol/line-splitter.js';
import { ALLOW_ALL, harness, policyFrom } from '../helpers/harness.js';

/** A router with one made-up handler; what reached the handler and what went out. */
function madeUp(method: string, needle?: string) {
  const seen: unknown[] = [];
  const toClient: string[] = [];
  const handler: Handler = {
    name: 'made-up',
    agent: {
      interest: { methods: [{ method, word: method, ...(needle ? { needle } : {}) }] },
      onMessage: ({ message }: Incoming<RequestOrNotification>) => { seen.push(message.type === 'request' ? message.id : message.method); return 'taken'; },
    },
  };
  const outbox = new Outbox({ toAgent: () => {}, toClient: (b) => toClient.push(b.toString()), audit: { write: () => {}, close: async () => {} }, clock: () => new Date(0), newDecisionId: () => 'd' });
  const router = new Router([handler], new ReadinessGate(undefined, () => {}), outbox, () => {});
  return { router, seen, toClient };
}

/** JSON text of `value` with each string character raw or `\uXXXX`, chosen by `escape`. */
function spelled(value: unknown, escape: (i: number) => boolean): string {
  let i = 0;
  return JSON.stringify(value).replace(/"((?:[^"\\]|\\.)*)"/g, (_all, body: string) => `"${[...JSON.parse(`"${body}"`) as string]
    .map((ch) => (escape(i++) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : JSON.stringify(ch).slice(1, -1))).join('')}"`);
}

describe('the router hands every line a handler declared to that handler', () => {
  it('a handler for a made-up method gets its lines, in any JSON spelling, through the chunk fast path too', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.constant('chunk'), fc.constant('mine')), { minLength: 1, maxLength: 40 }), fc.integer(), fc.integer({ min: 1, max: 500 }),
      (kinds, seed, cut) => {
        const { router, seen, toClient } = madeUp('x/frobnicate_widgets', 'robnicate');
        let s = seed;
        const escape = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) % 5 === 0);
        const lines = kinds.map((kind, i) => kind === 'mine'
          ? spelled({ jsonrpc: '2.0', id: i, method: 'x/frobnicate_widgets', params: {} }, escape)
          : JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { update: { sessionUpdate: 'agent_message_chunk', content: { text: `t${i}` } } } }));
        const bytes = Buffer.from(`${lines.join('\n')}\n`);
        const splitter = new LineSplitter({ line: (l) => router.fromAgent(l), oversized: () => {} }, 1 << 20, { scanner: router.agentScanner, cleared: (b) => toClient.push(b.toString()) });
        for (let at = 0; at < bytes.length; at += cut) splitter.push(Buffer.from(bytes.subarray(at, at + cut)));
        splitter.end();
        expect(seen).toEqual(kinds.flatMap((kind, i) => (kind === 'mine' ? [i] : [])));
        expect(toClient.join('')).not.toContain('robnicate');
      },
    ), { numRuns: 200, seed: 5 });
  });

  it('a needle must be part of its word, or the router is not built', () => {
    expect(needleOf({ word: 'x/frobnicate', needle: 'frob' })).toBe('frob');
    expect(() => madeUp('x/frobnicate', 'widget')).toThrow(/not part of/);
    expect(() => needleOf({ word: 'x', needle: '' })).toThrow();
  });

  it('every intercepted method is declared by a standard handler that holds it until decisions can be made', async () => {
    const { broker } = await harness(await policyFrom(ALLOW_ALL));
    const held = new Set(broker.interests('agent').flatMap((i) => (i.methods ?? []).filter((m) => m.holdUntilReady).map((m) => m.method)));
    for (const method of INTERCEPTED_METHODS) expect(held.has(method), method).toBe(true);
  });
});

describe('the broker room: handlers import neither the router nor each other', () => {
  const dir = join(import.meta.dirname, '../../src/broker');
  const handlerFiles = readdirSync(dir).filter((file) => /class \w+ implements (\w+, )?Handler\b/.test(readFileSync(join(dir, file), 'utf8')));

  it('finds the handler modules', () => {
    expect(handlerFiles.sort()).toEqual(['cancellation.ts', 'editor-channel.ts', 'enforced-call-handler.ts', 'modes-handler.ts', 'permission-requests.ts', 'session-observer.ts']);
  });

  it.each(handlerFiles)('%s', (file) => {
    const imports = [...readFileSync(join(dir, file), 'utf8').matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => `${m[1]}.ts`);
    for (const target of imports) {
      expect(['router.ts', 'broker.ts', ...handlerFiles.filter((f) => f !== file)]).not.toContain(target);
    }
  });
});
