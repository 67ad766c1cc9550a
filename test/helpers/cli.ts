import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'bin', 'acp-broker.js');
export const FIXTURES = join(ROOT, 'test', 'fixtures');

export function tempDir(prefix = 'acp-broker-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Spawn the built CLI; collects stdout as bytes and stderr as text. */
/** `node`: another Node binary to run the CLI with (test/interop/node-releases.test.ts). */
export function spawnBroker(args: string[], env: NodeJS.ProcessEnv = {}, node = process.execPath): {
  child: ChildProcessWithoutNullStreams;
  stdout: () => Buffer;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  // Run inside GitHub Actions, a test's exec must not annotate the real job or append to its summary.
  const { GITHUB_ACTIONS: _actions, GITHUB_STEP_SUMMARY: _summary, ...inherited } = process.env;
  const child = spawn(node, [CLI, ...args], { env: { ...inherited, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => Buffer.concat(out), stderr: () => err, exit };
}
