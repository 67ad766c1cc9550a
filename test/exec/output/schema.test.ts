import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecEvent } from '../../../src/exec/events.js';
import { ROOT } from '../../helpers/cli.js';
import { validate } from '../../helpers/json-schema.js';
import { allowed, denied, error, fellBack, plan, session, start, stop, text, thought, toolCall, toolDone } from './sample-events.js';

// The shipped schema, the TypeScript contract (src/exec/events.ts) and docs/exec-json.md say the same.
const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'exec-events.schema.json'), 'utf8')) as Record<string, unknown>;
const summary: ExecEvent = { v: 1, type: 'summary', time: '2026-12-01T18:00:01.000Z', exitCode: 0, stopReason: null, durationMs: 12.5,
  counts: { toolCalls: 1, allowed: 1, denied: 0, fellBack: 0, answeredByHuman: 0 } };
const EVERY_TYPE: ExecEvent[] = [start, session, text('x'), thought, toolCall('c', 'npm test'), toolDone('c'), plan,
  allowed('npm test'), denied('rm'), fellBack('/a'), stop, error, summary];

describe('the exec JSON Schema', () => {
  it('accepts an event of every type with every field set, and names every field (strict)', () => {
    for (const event of EVERY_TYPE) expect(validate(schema, event, { strict: true }), JSON.stringify(event)).toEqual([]);
    // Every type of the contract is among them.
    expect(new Set(EVERY_TYPE.map((e) => e.type))).toEqual(new Set(['start', 'session', 'text', 'thought', 'tool_call', 'tool_call_update', 'plan', 'decision', 'stop', 'error', 'summary']));
  });

  it('refuses what breaks the contract', () => {
    expect(validate(schema, { ...stop, v: 2 })).not.toEqual([]);
    expect(validate(schema, { v: 1, type: 'stop', time: stop.time })).not.toEqual([]);
    expect(validate(schema, { ...denied('x'), outcome: 'maybe' })).not.toEqual([]);
    expect(validate(schema, { ...denied('x'), source: { type: 'rule' } })).not.toEqual([]);
    expect(validate(schema, { v: 1, type: 'unknown', time: stop.time })).not.toEqual([]);
  });

  it('docs/exec-json.md documents every event type and every field the schema names', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'exec-json.md'), 'utf8');
    const names = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) { node.forEach(walk); return; }
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties') Object.keys(value as object).forEach((n) => names.add(n));
        if (key === 'const' || key === 'enum') [value].flat().forEach((v) => typeof v === 'string' && names.add(v));
        walk(value);
      }
    };
    walk(schema['$defs']);
    const missing = [...names].filter((n) => !docs.includes(`\`${n}\``));
    expect(missing).toEqual([]);
  });
});
