#!/usr/bin/env node
/**
 * Bundles the compiled CLI (dist/cli/main.js, from tsc) into dist/bin/: the executable the package
 * installs. Node's ESM loader pays for every module it resolves and reads, and the broker's start
 * is on the editor's critical path, so the modules are merged into a few chunks; the lazy
 * `import()`s stay lazy (split into their own chunks), and npm packages stay external.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
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
