import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { command, permissionRequest, readRequest, startBroker, writePolicy, type BrokerRun } from './driver.js';

// The policy file or the audit log fails while the broker runs (real CLI). The last good policy
// stays in force; an audit failure is loud and never changes a decision.

/** Decide four requests (a sentinel fifth); returns the answers by id ('yes' | 'no' | 'client' when escalated). */
async function decide(run: BrokerRun, base: number): Promise<Record<string, string>> {
  const from = run.lines.length;
  run.send(command('emit', { lines: [
    permissionRequest(base, 'git push origin main'),
    permissionRequest(base + 1, 'npm test'),
    readRequest(base + 2, '/home/dev/project/.env'),
    permissionRequest(base + 3, 'make deploy'),
    permissionRequest(base + 4, 'npm test'),
  ] }));
  run.send(command('expect', { id: base + 4 }));
  const { responses } = await run.report('answered', from);
  const out: Record<string, string> = {};
  for (const r of responses as { id: number; result?: { outcome?: { optionId?: string } } }[]) {
    if (r.id >= base && r.id < base + 4) out[r.id - base] = r.result?.outcome?.optionId ?? 'cancelled';
  }
  for (const l of run.lines.slice(from)) {
    const id = l.message?.method === 'session/request_permission' ? l.message.id as number : undefined;
    if (id !== undefined && id >= base && id < base + 4) out[id - base] = 'client';
  }
  return out;
}

const AS_STARTED = { 0: 'no', 1: 'yes', 2: 'no', 3: 'client' };

/** Give a hot reload (polling) every chance to notice the change: wait for its message, or a while. */
async function afterReloadAttempt(run: BrokerRun): Promise<void> {
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && !/last good policy|reloaded/.test(run.stderr())) await new Promise((r) => setTimeout(r, 100));
}

describe('the policy file fails while the broker runs: the last good policy stays', () => {
  const breakages: { name: string; apply: (file: string) => void }[] = [
    { name: 'deleted', apply: (file) => rmSync(file) },
    { name: 'replaced by invalid YAML', apply: (file) => writeFileSync(file, 'version: 1\nrules: [\n  - id: x\n') },
    { name: 'replaced by an invalid policy', apply: (file) => writeFileSync(file, 'version: 1\nrules:\n  - id: x\n    decison: allow\n') },
    { name: 'emptied', apply: (file) => writeFileSync(file, '') },
    { name: 'replaced by a directory', apply: (file) => { rmSync(file); mkdirSync(file); } },
    { name: 'made unreadable', apply: (file) => chmodSync(file, 0) },
  ];
  for (const { name, apply } of breakages) {
    it(name, async () => {
      const dir = tempDir('acp-broker-fault-');
      const policy = writePolicy(dir);
      const run = startBroker({ dir, policy });
      await run.report('hello');
      expect(await decide(run, 100)).toEqual(AS_STARTED);
      apply(policy);
      await afterReloadAttempt(run);
      expect(await decide(run, 200)).toEqual(AS_STARTED);
      run.child.stdin.end();
      expect((await run.exit).code).toBe(0);
      expect(run.stderr()).not.toMatch(/TypeError|RangeError|\n\s+at /);
    }, 30_000);
  }
});

describe('the audit log cannot be written', () => {
  const targets: { name: string; path: (dir: string) => string }[] = [
    // (A missing directory under /proc hangs the broker at start: see pending-audit-under-proc.test.ts.)
    { name: 'a file in /proc', path: () => '/proc/acp-broker-audit.jsonl' },
    { name: 'a path below a regular file', path: (dir) => { writeFileSync(join(dir, 'plain'), ''); return join(dir, 'plain', 'audit.jsonl'); } },
    { name: 'a directory', path: (dir) => { const d = join(dir, 'audit-dir'); mkdirSync(d); return d; } },
    { name: 'a full device', path: () => '/dev/full' },
  ];
  for (const { name, path } of targets) {
    for (const mode of ['interactive', 'non-interactive'] as const) {
      it(`${name} (${mode}): a loud warning on stderr, decisions go on unchanged`, async () => {
        const dir = tempDir('acp-broker-fault-');
        const run = startBroker({ dir, args: ['--audit', path(dir), ...(mode === 'non-interactive' ? ['--non-interactive'] : [])] });
        await run.report('hello');
        const first = await decide(run, 100);
        const second = await decide(run, 200);
        const expected = mode === 'interactive' ? AS_STARTED : { ...AS_STARTED, 3: 'no' };
        expect(first).toEqual(expected);
        expect(second).toEqual(expected);
        run.child.stdin.end();
        expect((await run.exit).code).toBe(0);
        expect(run.stderr()).toMatch(/WARNING.*audit/);
      }, 30_000);
    }
  }

  it('an audit file that works is written (control for the cases above)', async () => {
    const dir = tempDir('acp-broker-fault-');
    const run = startBroker({ dir });
    await run.report('hello');
    await decide(run, 100);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    expect(run.stderr()).not.toMatch(/WARNING/);
    const events = readFileSync(run.audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { outcome: string; source: unknown });
    // The escalated request was still open when the client left: cancelled for the agent, and audited.
    expect(events.map((e) => e.outcome)).toEqual(['denied', 'allowed', 'denied', 'escalated', 'allowed', 'cancelled']);
    expect(events.at(-1)!.source).toEqual({ type: 'cancelled', by: 'client-gone' });
  });
});
