import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The bundle users run (built by test/global-setup.ts). Each module Node's ESM loader resolves before
// the agent's spawn delays it (bench/RESULTS.md, "Issue 14, eighth session").
const ENTRY = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'acp-broker.js');

describe('the bundle\'s entry (dist/bin/acp-broker.js)', () => {
  const text = readFileSync(ENTRY, 'utf8');
  const staticChunks = [...text.matchAll(/^import\s[^;]*?from\s*["'](\.\/[^"']+)["']/gm)].map((m) => m[1]);
  const sideEffectChunks = [...text.matchAll(/^import\s*["'](\.\/[^"']+)["']/gm)].map((m) => m[1]);
  const lazyChunks = [...text.matchAll(/import\(\s*["'](\.\/[^"']+)["']\s*\)/g)].map((m) => m[1]);

  it('holds the path to the spawn itself: at most one chunk is imported before main runs', () => {
    expect([...staticChunks, ...sideEffectChunks].length).toBeLessThanOrEqual(1);
    expect(text).toContain('function spawnEarly(');
    expect(text).toContain('function earlyStart(');
  });

  it('keeps every command\'s own modules lazy: run, exec, check and the daemon are imported on use', () => {
    expect(lazyChunks.length).toBeGreaterThanOrEqual(8);
    expect(text).not.toContain('function runCommand(');
    expect(text).not.toContain('function execCommand(');
    expect(text).not.toContain('function checkCommand(');
    expect(text).not.toContain('function daemonCommand(');
  });
});
