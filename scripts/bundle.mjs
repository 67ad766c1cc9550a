#!/usr/bin/env node
/**
 * Bundles the compiled CLI (dist/cli/main.js, from tsc) into dist/bin/: the executable the package
 * installs. Node's ESM loader pays for every module it resolves and reads, and the broker's start
 * is on the editor's critical path, so the modules are merged into few chunks. Rolldown keeps what
 * the entry imports statically in the entry itself: the path to the agent's spawn is one file (and
 * the shared errors module), where esbuild's splitting gave it twelve (bench/RESULTS.md, "Issue 14,
 * eighth session"). The lazy `import()`s stay lazy, in chunks of their own, and npm packages stay
 * external.
 */
import { rolldown } from 'rolldown';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const outdir = join(root, 'dist', 'bin');
rmSync(outdir, { recursive: true, force: true });
const bundle = await rolldown({
  input: { 'acp-broker': join(root, 'dist', 'cli', 'main.js') },
  platform: 'node',
  // Bare specifiers (node:… and npm packages) stay imports; only the project's own files are bundled.
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  logLevel: 'warn',
  onLog(level, log, handler) {
    // A warning is a build that may not do what the source says: fail rather than ship it.
    if (level === 'warn') throw new Error(`bundle: ${log.message}`);
    handler(level, log);
  },
});
await bundle.write({ dir: outdir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunk-[hash].js' });
await bundle.close();

// The build's id (src/startup/build-id.ts): a policy's load recorded by one build is restored only
// by the same build. The npm packages stay outside the bundle, so their installed versions count too.
const hash = createHash('sha256');
for (const file of readdirSync(outdir).sort()) hash.update(`${file}\0${readFileSync(join(outdir, file), 'utf8')}\0`);
const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const name of Object.keys(dependencies).sort()) {
  hash.update(`${name}@${JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version}\0`);
}
writeFileSync(join(outdir, 'build-id'), `${hash.digest('hex')}\n`);
