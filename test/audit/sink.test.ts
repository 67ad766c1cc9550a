import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/event.js';
import { fileAuditSink } from '../../src/audit/sink.js';

const problem = (n: number): AuditEvent => ({ v: 1, event: 'problem', time: new Date(0).toISOString(), reason: 'test', message: `event ${n}` });
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { message: string });

describe('the audit file sink', () => {
  it('gathers events and appends them in order within the flush window, readable only by the user', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'audit-')), 'nested', 'audit.jsonl');
    const sink = fileAuditSink(file, () => {}, 20);
    for (let i = 0; i < 100; i++) sink.write(problem(i));
    expect(readFileSync(file, 'utf8')).toBe('');
    await sleep(100);
    expect(lines(file).map((e) => e.message)).toEqual(Array.from({ length: 100 }, (_, i) => `event ${i}`));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await sink.close();
  });

  it('close() writes what is still gathered at once, after what was there before', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.jsonl');
    const first = fileAuditSink(file, () => {}, 60_000);
    first.write(problem(1));
    await first.close();
    const second = fileAuditSink(file, () => {}, 60_000);
    second.write(problem(2));
    second.write(problem(3));
    await second.close();
    expect(lines(file).map((e) => e.message)).toEqual(['event 1', 'event 2', 'event 3']);
  });

  it('keeps order and bytes across large and non-ASCII events, whatever the buffer boundaries', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.jsonl');
    const sink = fileAuditSink(file, () => {}, 60_000);
    const messages = Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? `big ${i} ${'é€𝄞'.repeat(40_000)}` : `small ${i} ✓`));
    for (const [i, message] of messages.entries()) sink.write({ ...problem(i), message });
    await sink.close();
    expect(lines(file).map((e) => e.message)).toEqual(messages);
  });

  it('a device that refuses writes (/dev/full) is reported once and never throws into the caller', async () => {
    const warnings: string[] = [];
    const sink = fileAuditSink('/dev/full', (m) => warnings.push(m), 5);
    sink.write(problem(1));
    await sleep(50);
    sink.write(problem(2));
    await sleep(50);
    await sink.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/WARNING: cannot write the audit log \/dev\/full: .*ENOSPC.*Decisions continue/);
  });
});
