#!/usr/bin/env node
/**
 * Bundles the compiled CLI (dist/cli/main.js, from tsc) into dist/bin/: the executable the package
 * installs. Node's ESM loader pays for every module it resolves and reads, and the broker's start
 * is on the editor's critical path, so the modules are merged into a few chunks; the lazy
 * `import()`s stay lazy (split into their own chunks), and npm packages stay external.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const outdir = join(root, 'dist', 'bin');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { 'acp-broker': join(root, 'dist', 'cli', 'main.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});

// The build's id (src/startup/build-id.ts): a policy's load recorded by one build is restored only
// by the same build. The npm packages stay outside the bundle, so their installed versions count too.
const hash = createHash('sha256');
for (const file of readdirSync(outdir).sort()) hash.update(`${file}\0${readFileSync(join(outdir, file), 'utf8')}\0`);
const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const name of Object.keys(dependencies).sort()) {
  hash.update(`${name}@${JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version}\0`);
}
writeFileSync(join(outdir, 'build-id'), `${hash.digest('hex')}\n`);
