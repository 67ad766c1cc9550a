import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandGrant, useTempDirs } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tempDir = useTempDirs();

/**
 * Runs `body` in a fresh Node with a FileGrantStore over `dir` (from dist/) as `store`; prints the
 * package modules the ES loader resolved, then what `body` printed.
 */
function inFreshNode(dir: string, body: string): { packages: string[]; output: string[] } {
  const hook = `data:text/javascript,${encodeURIComponent(
    'export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes("/node_modules/")) console.log("PKG " + r.url); return r; }')}`;
  const script = `import { register } from 'node:module'; register(${JSON.stringify(hook)});
    const { FileGrantStore } = await import(${JSON.stringify(join(ROOT, 'dist', 'grants', 'file-store.js'))});
    const store = new FileGrantStore({ dir: ${JSON.stringify(dir)} });
    ${body}`;
  const lines = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
  return { packages: lines.filter((l) => l.startsWith('PKG ')), output: lines.filter((l) => !l.startsWith('PKG ')) };
}

const GRANT = commandGrant('npm test');

// The first decision waits for the grants store to open; conf and its dependencies (ajv, …) cost
// more to load than the rest of it, and are needed only to write.
describe('the grants store loads conf only to write', () => {
  it('opening and reading a store with grants loads no package; the first write loads conf and writes the file', () => {
    const dir = tempDir();
    const written = inFreshNode(dir, `store.add(${JSON.stringify(GRANT)}); console.log(store.list().length);`);
    expect(written.output).toEqual(['1']);
    expect((fs.statSync(join(dir, 'grants.json')).mode & 0o777).toString(8)).toBe('600');

    const read = inFreshNode(dir, 'console.log(store.list().map((g) => g.subject.argv.join(" ")).join(","));');
    expect(read.output).toEqual(['npm test']);
    expect(read.packages).toEqual([]);
  });
});
