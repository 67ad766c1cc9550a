import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/event.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { FileGrantStore } from '../../src/grants/file-store.js';
import { whenDecisionsReady } from '../../src/startup/deferred-loading.js';
import { rehearseDecisions } from '../../src/startup/rehearsal.js';
import { tempDir } from '../helpers/cli.js';
import { CLAUDE_OPTIONS, harness, policyFrom, shell } from '../helpers/harness.js';

const POLICY = `
version: 1
default: ask
rules:
  - id: tests
    decision: allow
    match: { command: ["npm test", "echo", "git status"] }
  - id: no-rm
    decision: deny
    match: { command: ["rm -rf"] }
`;

async function deps(dir: string) {
  const policy = await policyFrom(POLICY);
  return {
    policyFor: () => policy, shell: await shell(), home: '/home/dev', fallbackWorkspace: '/home/dev/project', canonicalize: lexicalOnly, fileExists: () => false,
    nonInteractive: false, clock: () => new Date('2026-11-30T12:00:00Z'), grants: new FileGrantStore({ dir }),
  };
}

describe('the decision-path rehearsal', () => {
  it('decides the requested number of synthetic requests and leaves no trace: no grants file, nothing kept', async () => {
    const dir = tempDir();
    const decided = await rehearseDecisions(await deps(dir), { requests: 300, budgetMs: 60_000, sliceMs: 4 });
    expect(decided).toBe(300);
    expect(existsSync(join(dir, 'grants.json'))).toBe(false);
  });

  it('stops when its time budget is spent', async () => {
    const decided = await rehearseDecisions(await deps(tempDir()), { requests: 1e9, budgetMs: 50, sliceMs: 4 });
    expect(decided).toBeGreaterThan(0);
    expect(decided).toBeLessThan(1e9);
  });

  it('a broker on the same policy decides real requests the same way after it', async () => {
    const d = await deps(tempDir());
    await rehearseDecisions(d, { requests: 200, budgetMs: 60_000, sliceMs: 4 });
    const h = await harness(d.policyFor());
    h.client({ jsonrpc: '2.0', id: 'new', method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 'new', result: { sessionId: 's' } });
    const ask = (id: number, command: string) => h.agent({ jsonrpc: '2.0', id, method: 'session/request_permission', params: {
      sessionId: 's', toolCall: { toolCallId: `t${id}`, kind: 'execute', rawInput: { command } },
      options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }] } });
    ask(1, 'npm test && git status');
    ask(2, 'rm -rf build');
    expect(h.answers().get(1)).toEqual({ outcome: { outcome: 'selected', optionId: 'ok' } });
    expect(h.answers().get(2)).toEqual({ outcome: { outcome: 'selected', optionId: 'no' } });
    expect(h.audit.map((e: AuditRecord) => e.event)).toEqual(['decision', 'decision']);
  });
});

describe('the rehearsal never competes with real traffic', () => {
  it('stops before its next synthetic request once real work arrives', async () => {
    let arrived = false;
    let decided = 0;
    const d = await deps(tempDir());
    const counting = { ...d, shell: { analyze: (line: string, context: Parameters<typeof d.shell.analyze>[1]) => { decided++; return d.shell.analyze(line, context); } } };
    const running = rehearseDecisions(counting, { requests: 1e9, budgetMs: 60_000, sliceMs: 4, stop: () => arrived });
    while (decided < 50) await new Promise((resolve) => setTimeout(resolve, 1));
    arrived = true;
    const atArrival = decided;
    const done = await running;
    expect(done).toBeLessThan(1e9);
    expect(decided).toBe(atArrival);
  });

  it('never starts when real work is already there', async () => {
    expect(await rehearseDecisions(await deps(tempDir()), { requests: 1e9, budgetMs: 60_000, sliceMs: 4, stop: () => true })).toBe(0);
  });

  it('decisions are ready as soon as the first real line arrives: not one more synthetic request is decided', async () => {
    const d = await deps(tempDir());
    let analysed = 0;
    const counting = { ...d, shell: { analyze: (line: string, context: Parameters<typeof d.shell.analyze>[1]) => { analysed++; return d.shell.analyze(line, context); } } };
    let traffic = 0;
    const ready = whenDecisionsReady({ engine: Promise.resolve({} as never), grants: Promise.resolve(d.grants), attach: () => {}, rehearse: { deps: counting, traffic: () => traffic, held: () => 0 } });
    // Let the rehearsal decide a few slices, then real traffic arrives (between two of its slices).
    while (analysed < 50) await new Promise((resolve) => setTimeout(resolve, 1));
    traffic++;
    const atArrival = analysed;
    expect(atArrival).toBeGreaterThan(0);
    await ready;
    expect(analysed).toBe(atArrival);
  });

  it('never starts while a real request waits for it: a request held during loading is decided first, the rehearsal not at all', async () => {
    // As `run` wires it: the broker holds decisions until whenDecisionsReady resolves, and the
    // rehearsal is told how many requests the broker holds. The agent's request arrives while the
    // engine loads; after it, nothing (the agent waits for the answer), so no new traffic would
    // ever stop a rehearsal that had started.
    const d = await deps(tempDir());
    let analysed = 0;
    const counting = { ...d, shell: { analyze: (line: string, context: Parameters<typeof d.shell.analyze>[1]) => { analysed++; return d.shell.analyze(line, context); } } };
    let engineLoaded!: () => void;
    const engine = new Promise<never>((resolve) => { engineLoaded = () => resolve({} as never); });
    let held = () => 0;
    const ready = whenDecisionsReady({ engine, grants: Promise.resolve(d.grants), attach: () => {}, rehearse: { deps: counting, traffic: () => 0, held: () => held() } });
    const h = await harness(await policyFrom(POLICY), { decisionsReady: ready, shell: counting.shell });
    held = () => h.broker.heldCount();
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } });
    h.agent({ jsonrpc: '2.0', id: 'real', method: 'session/request_permission', params: { sessionId: 's', options: CLAUDE_OPTIONS, toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'npm test' } } } });
    expect(h.broker.heldCount()).toBe(1);
    engineLoaded();
    await ready;
    expect(h.answers().get('real')).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(analysed).toBe(1); // the real request's command, and no synthetic one
  });
});

