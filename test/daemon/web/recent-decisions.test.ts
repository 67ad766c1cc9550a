import { appendFileSync, chmodSync, closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditLine } from '../../../src/audit/sink.js';
import type { AuditEventV1 } from '../../../src/audit/event.js';
import { readRecentDecisions, tailLines } from '../../../src/daemon/web/recent-decisions.js';

const dir = () => mkdtempSync(join(tmpdir(), 'inbox-audit-'));

function decision(n: number, extra: Partial<AuditEventV1> = {}): AuditEventV1 {
  return {
    v: 1, event: 'decision', time: new Date(Date.UTC(2026, 11, 1, 12, 0, n % 60)).toISOString(), agent: 'claude-code-acp', kind: 'execute',
    command: `npm test -- ${n}`, decision: 'allow', outcome: 'allowed', source: { type: 'rule', ruleId: 'npm-scripts', layer: 'user' },
    reason: `rule npm-scripts (${n})`, ...extra,
  };
}

describe('recent decisions from the audit log', () => {
  it('returns the newest decisions first, skipping malformed lines and other events', async () => {
    const file = join(dir(), 'audit.jsonl');
    writeFileSync(file, [
      auditLine(decision(1)),
      'not json at all\n',
      '{"v":1,"event":"decision"}\n',
      '{"v":2,"event":"decision","time":"2026-12-01T12:00:00.000Z"}\n',
      auditLine({ v: 1, event: 'problem', time: new Date().toISOString(), message: 'x' }),
      auditLine(decision(2, { decision: 'deny', outcome: 'denied', source: { type: 'web' } as never, optionId: 'acp-broker:reject_always:3', grants: ['g-17'] })),
      '[1,2,3]\n',
      auditLine(decision(3, { source: { type: 'timeout', fallback: 'deny' }, decision: 'deny' })),
      '{"v":1,"event":"decision","time":"2026-12-01T12:00:09.000Z","command":"cut in the mi',
    ].join(''));
    const decisions = await readRecentDecisions(file);
    expect(decisions.map((d) => d.command)).toEqual(['npm test -- 3', 'npm test -- 2', 'npm test -- 1']);
    expect(decisions[0]).toMatchObject({ by: 'timeout (deny)', decision: 'deny' });
    expect(decisions[1]).toEqual({
      time: '2026-12-01T12:00:02.000Z', agent: 'claude-code-acp', kind: 'execute', title: undefined, command: 'npm test -- 2',
      decision: 'deny', outcome: 'denied', by: 'web inbox', reason: 'rule npm-scripts (2)', optionId: 'acp-broker:reject_always:3', grants: ['g-17'],
    });
    expect(decisions[2]!.by).toBe('rule npm-scripts');
  });

  it('reads only the end of a huge log (3 GiB, sparse: reading it whole could not even fit in a string)', async () => {
    const file = join(dir(), 'audit.jsonl');
    const handle = openSync(file, 'w');
    ftruncateSync(handle, 3 * 1024 ** 3);
    closeSync(handle);
    appendFileSync(file, `\n${Array.from({ length: 2000 }, (_, i) => JSON.stringify(decision(i))).join('\n')}\n`);
    const decisions = await readRecentDecisions(file, { limit: 10 });
    expect(decisions.map((d) => d.command)).toEqual(Array.from({ length: 10 }, (_, i) => `npm test -- ${1999 - i}`));
    // Past the lines, the hole's zeros: a giant "line" that is read no further than maxBytes and skipped.
    expect(await readRecentDecisions(file, { limit: 5000, maxBytes: 4 * 1024 * 1024 })).toHaveLength(2000);
    rmSync(file);
  });

  it('keeps non-ASCII text whole across chunk boundaries and cuts nothing but the first partial line', async () => {
    const file = join(dir(), 'audit.jsonl');
    const lines = Array.from({ length: 300 }, (_, i) => auditLine(decision(i, { reason: `é€𝄞 ${'日本語'.repeat(i * 7)} ${i}` })));
    writeFileSync(file, lines.join(''));
    const tail = await tailLines(file, 250, 64 * 1024 * 1024);
    expect(tail).toEqual(lines.slice(-250).map((l) => l.slice(0, -1)));
    const decisions = await readRecentDecisions(file, { limit: 300 });
    expect(decisions).toHaveLength(300);
    expect(decisions.every((d, i) => d.reason === `é€𝄞 ${'日本語'.repeat((299 - i) * 7)} ${299 - i}`)).toBe(true);
  });

  it('reads back no further than maxBytes', async () => {
    const file = join(dir(), 'audit.jsonl');
    writeFileSync(file, Array.from({ length: 1000 }, (_, i) => auditLine(decision(i))).join(''));
    const decisions = await readRecentDecisions(file, { limit: 1000, maxBytes: 2000 });
    expect(decisions.length).toBeGreaterThan(0);
    expect(decisions.length).toBeLessThan(20);
    expect(decisions[0]!.command).toBe('npm test -- 999');
  });

  it('a missing or empty log has no decisions; an unreadable one rejects', async () => {
    const d = dir();
    expect(await readRecentDecisions(join(d, 'none.jsonl'))).toEqual([]);
    writeFileSync(join(d, 'empty.jsonl'), '');
    expect(await readRecentDecisions(join(d, 'empty.jsonl'))).toEqual([]);
    appendFileSync(join(d, 'locked.jsonl'), auditLine(decision(1)));
    chmodSync(join(d, 'locked.jsonl'), 0o000);
    if (process.getuid?.() !== 0) await expect(readRecentDecisions(join(d, 'locked.jsonl'))).rejects.toThrow(/EACCES/);
  });
});
