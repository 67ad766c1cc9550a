#!/usr/bin/env node
// `npm run demo`: the broker deciding a scripted agent's real permission requests with the bundled
// default policy, headless (acp-broker exec), then a table of what was allowed, denied or fell back.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'dist', 'bin', 'acp-broker.js');
if (!existsSync(cli)) {
  console.error('acp-broker is not built yet: run `npm ci` (or `npm run build`) first.');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'acp-broker-demo-'));
const project = join(work, 'project-x');
mkdirSync(join(project, 'src'), { recursive: true });
writeFileSync(join(project, 'src', 'index.ts'), 'export * from "./app";\n');
writeFileSync(join(project, '.env'), 'API_TOKEN=sk-demo-not-a-real-token-123456\nDEBUG=0\n');
const audit = join(work, 'audit.jsonl');

console.log(`Project: ${project}\nPolicy:  policies/default.yaml (non-interactive: 'ask' falls back to deny)\n`);
const result = spawnSync(process.execPath, [
  cli, 'exec', '--policy', join(root, 'policies', 'default.yaml'), '--audit', audit, '--cwd', project, '--quiet',
  '--prompt', 'Fix the failing test and ship it.', '--', process.execPath, join(root, 'examples', 'demo', 'scripted-agent.mjs'),
], { encoding: 'utf8', env: { ...process.env, ACP_BROKER_HOME: join(work, 'home') } });

const events = existsSync(audit) ? readFileSync(audit, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const rows = events.filter((e) => e.event === 'decision').map((e) => {
  const label = e.outcome === 'allowed' ? 'ALLOWED' : e.source?.type === 'fallback' ? 'FELL BACK' : e.outcome === 'denied' ? 'DENIED' : e.outcome.toUpperCase();
  const reason = e.reason.split(`${project}/`).join('');
  const why = e.source?.type === 'fallback' ? `nobody to ask, so ${e.source.fallback}: ${reason}` : reason;
  return { request: e.command ?? e.title ?? e.kind, label, why };
});
const width = Math.min(60, Math.max(...rows.map((r) => r.request.length), 7));
console.log(`${'REQUEST'.padEnd(width)}  ${'DECISION'.padEnd(9)}  WHY`);
console.log(`${'-'.repeat(width)}  ${'-'.repeat(9)}  ${'-'.repeat(40)}`);
for (const row of rows) console.log(`${row.request.slice(0, width).padEnd(width)}  ${row.label.padEnd(9)}  ${row.why}`);
const counts = rows.reduce((acc, r) => ({ ...acc, [r.label]: (acc[r.label] ?? 0) + 1 }), {});
console.log(`\n${Object.entries(counts).map(([k, v]) => `${v} ${k.toLowerCase()}`).join(', ')}.`);
console.log(`\nThe agent said:\n${result.stdout.trim().split('\n').map((l) => `  ${l}`).join('\n')}`);
console.log(`\nFiles: src/app.ts ${existsSync(join(project, 'src', 'app.ts')) ? 'written' : 'not written'}; .env ${readFileSync(join(project, '.env'), 'utf8').includes('DEBUG=1') ? 'CHANGED' : 'untouched'}.`);
console.log(`Audit log (one JSON object per decision): ${audit}`);
if (result.status !== 0) {
  console.error(`\nacp-broker exec exited with ${result.status}:\n${result.stderr}`);
  process.exit(1);
}
