#!/usr/bin/env node
/**
 * Shell analysis alone (no facts, no policy): what the first analyzer costs to create (wasm init and
 * grammar load), and the time per line with the analysis cache off ("uncached": every call parses)
 * and on ("cached": every call after the first is a hit). Uses dist/ (run `npx tsc -p tsconfig.json`).
 *
 *   node bench/shell-analysis.mjs            table on stdout
 *   node bench/shell-analysis.mjs --json     machine-readable (what `bench/run.mjs --only shell` reads)
 *   node bench/shell-analysis.mjs --quick    fewer runs (a smoke test, not figures)
 *
 * A reported figure without a target: bench/shell-eval.mjs holds the targets for a whole decision.
 */
import { createShellAnalyzer } from '../dist/shell/index.js';

const LINES = [
  'npm test',
  'git status && git diff',
  'cd /w && npm test 2>&1 | grep fail',
  'ls -la | head -20; cat package.json | wc -l > out.txt',
  'bash -lc "cd /w && npm run lint && git diff --stat"',
  'find . -name "*.tmp" -exec rm -f {} \\; && sudo timeout 5 env X=1 rm -rf "$HOME/x" > /tmp/log 2>&1',
];

const QUICK = process.argv.includes('--quick');
const WARM_UP = QUICK ? 200 : 2_000;
const RUNS = QUICK ? 2_000 : 20_000;

/** Mean microseconds per call of `run` over `RUNS` calls. */
function perCallUs(run) {
  const start = performance.now();
  for (let i = 0; i < RUNS; i++) run();
  return ((performance.now() - start) / RUNS) * 1000;
}

async function main() {
  const started = performance.now();
  const cached = await createShellAnalyzer();
  const firstCreateMs = performance.now() - started;
  const uncached = await createShellAnalyzer({ cacheSize: 0 });
  const context = { cwd: '/w', home: '/home/dev' };
  const rows = [];
  for (const line of LINES) {
    // Warm up the JIT before timing, so the first line does not pay for everyone.
    for (let i = 0; i < WARM_UP; i++) uncached.analyze(line, context);
    const uncachedUs = perCallUs(() => uncached.analyze(line, context));
    const cachedUs = perCallUs(() => cached.analyze(line, context));
    rows.push({ line, uncachedUs, cachedUs });
  }
  const result = { firstCreateMs, runs: RUNS, rows };
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  process.stdout.write(`first createShellAnalyzer (wasm init + grammar load): ${firstCreateMs.toFixed(1)} ms\n`);
  for (const r of rows) {
    process.stdout.write(`${r.uncachedUs.toFixed(1).padStart(7)} µs uncached ${r.cachedUs.toFixed(2).padStart(6)} µs cached  ${r.line}\n`);
  }
}

await main();
