/**
 * The web inbox with its test fixtures (the in-memory approvals view, realistic approvals), compiled
 * from TypeScript on the fly with esbuild, for scripts that are not tests: the README screenshot
 * (scripts/inbox-screenshot.mjs) and the latency bench (bench/inbox.mjs).
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = join(import.meta.dirname, '..');

export async function loadInboxKit() {
  const result = await build({
    stdin: {
      contents: [
        "export { startInbox } from './src/daemon/web/server.ts';",
        "export { MemoryView } from './test/daemon/web/memory-view.ts';",
        "export { publishRequest, editRequest } from './test/daemon/web/fixtures.ts';",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'warning',
  });
  const dir = mkdtempSync(join(tmpdir(), 'inbox-kit-'));
  const file = join(dir, 'kit.mjs');
  writeFileSync(file, result.outputFiles[0].text);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
