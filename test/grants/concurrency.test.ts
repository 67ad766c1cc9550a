/**
 * Several broker processes write one store at once. The children run the compiled store (there is
 * no TypeScript loader for plain node here), built from src/ into a temp dir before the tests.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileGrantStore } from '../../src/grants/file-store.js';
import type { Grant } from '../../src/grants/grant.js';
import type { GrantStoreProblem } from '../../src/grants/store.js';
import { useTempDirs } from './helpers.js';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');
const WRITER = fileURLToPath(new URL('./fixtures/grant-writer.mjs', import.meta.url));
const WORKERS = 6;
const PER_WORKER = 25;

let buildDir: string;
let storeModule: string;
const tempDir = useTempDirs();

beforeAll(() => {
  buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-broker-grants-build-'));
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(
    process.execPath,
    [tsc, '--outDir', buildDir, '--rootDir', path.join(ROOT, 'src'), '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
      '--target', 'ES2022', '--strict', '--types', 'node', '--skipLibCheck', path.join(ROOT, 'src/grants/file-store.ts')],
    { cwd: ROOT, encoding: 'utf8' },
  );
  storeModule = path.join(buildDir, 'grants/file-store.js');
  if (!fs.existsSync(storeModule)) throw new Error(`tsc did not build the store: ${result.stdout}${result.stderr}`);
  // The build must resolve `conf` and load as ESM, like dist/ does inside the package.
  fs.writeFileSync(path.join(buildDir, 'package.json'), '{"type":"module"}\n');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(buildDir, 'node_modules'), 'junction');
}, 60_000);

afterAll(() => {
  if (buildDir) fs.rmSync(buildDir, { recursive: true, force: true });
});

interface WorkerResult {
  kept: string[];
  problems: GrantStoreProblem[];
}

/** Starts every worker, releases them together, and returns what each one kept. */
async function runWorkers(dir: string, mode: 'add' | 'add-and-revoke', env: NodeJS.ProcessEnv = process.env): Promise<WorkerResult[]> {
  const children = Array.from({ length: WORKERS }, (_, worker) =>
    spawn(process.execPath, [WRITER, pathToFileURL(storeModule).href, dir, String(worker), String(PER_WORKER), mode], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    }),
  );
  const outputs = children.map((child) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ready = new Promise<void>((resolve) => {
      const check = () => (stdout.startsWith('ready\n') ? resolve() : undefined);
      child.stdout.on('data', check);
    });
    const exited = new Promise<WorkerResult>((resolve, reject) =>
      child.on('close', (code) =>
        code === 0 ? resolve(JSON.parse(stdout.slice('ready\n'.length)) as WorkerResult) : reject(new Error(`worker exited ${code}: ${stderr}`)),
      ),
    );
    return { ready, exited };
  });
  await Promise.all(outputs.map((o) => o.ready));
  for (const child of children) child.stdin.end('go\n');
  return Promise.all(outputs.map((o) => o.exited));
}

/** Reads the store file and a live store while workers write: every read must be whole. */
function watchWhileWriting(dir: string) {
  const file = path.join(dir, 'grants.json');
  const problems: GrantStoreProblem[] = [];
  const reader = new FileGrantStore({ dir, onProblem: (p) => problems.push(p) });
  let reads = 0;
  const tornReads: string[] = [];
  const listed: number[] = [];
  const timer = setInterval(() => {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return; // not created yet
    }
    try {
      JSON.parse(text);
      reads++;
    } catch {
      tornReads.push(text);
    }
    listed.push(reader.list().length);
  }, 1);
  return {
    stop: () => {
      clearInterval(timer);
      // Workers only add, so what a live store lists must only ever grow.
      const shrank = listed.some((n, i) => i > 0 && n < listed[i - 1]!);
      return { reads, tornReads, problems, shrank, listed: listed.length };
    },
  };
}

describe('concurrent brokers', () => {
  it(`${WORKERS} processes adding ${PER_WORKER} grants each lose nothing and never tear the file`, async () => {
    const dir = tempDir();
    const watch = watchWhileWriting(dir);
    const results = await runWorkers(dir, 'add');
    const seen = watch.stop();

    const file = JSON.parse(fs.readFileSync(path.join(dir, 'grants.json'), 'utf8')) as { version: number; grants: Grant[] };
    expect(file.version).toBe(1);
    expect(file.grants).toHaveLength(WORKERS * PER_WORKER);
    expect(new Set(file.grants.map((g) => g.id)).size).toBe(WORKERS * PER_WORKER);
    expect(new Set(file.grants.map((g) => JSON.stringify(g.subject))).size).toBe(WORKERS * PER_WORKER);
    expect(file.grants.map((g) => g.id).sort()).toEqual(results.flatMap((r) => r.kept).sort());
    expect(results.flatMap((r) => r.problems)).toEqual([]);

    expect(seen.tornReads).toEqual([]);
    expect(seen.problems).toEqual([]);
    expect(seen.reads).toBeGreaterThan(0);
    expect(seen.shrank).toBe(false);
    expect(new FileGrantStore({ dir }).list()).toHaveLength(WORKERS * PER_WORKER);
    expect(fs.readdirSync(dir)).toEqual(['grants.json']); // no lock or temp file left behind
  }, 60_000);

  it('concurrent adds and revokes keep exactly the grants not revoked', async () => {
    const dir = tempDir();
    const results = await runWorkers(dir, 'add-and-revoke');
    const kept = results.flatMap((r) => r.kept);
    expect(kept).toHaveLength(WORKERS * Math.ceil(PER_WORKER / 2));
    const stored = new FileGrantStore({ dir }).list();
    expect(stored.map((g) => g.id).sort()).toEqual(kept.sort());
  }, 60_000);

  it('a live reader stays correct even where conf writes non-atomically (Snap)', async () => {
    // conf falls back to a plain truncate-and-write when SNAP is set; lock-free readers then can
    // catch a half-written file. They must re-check under the lock, not back it up or forget grants.
    const dir = tempDir();
    const watch = watchWhileWriting(dir);
    await runWorkers(dir, 'add', { ...process.env, SNAP: '1' });
    const seen = watch.stop();
    expect(seen.problems).toEqual([]);
    expect(seen.shrank).toBe(false);
    expect(fs.readdirSync(dir)).toEqual(['grants.json']); // nothing was moved aside
    expect(new FileGrantStore({ dir }).list()).toHaveLength(WORKERS * PER_WORKER);
  }, 60_000);
});
