/**
 * Not a test: prints how long analysis takes. Run with
 *   SHELL_BENCH=1 npx vitest run test/shell/bench-shell.test.ts
 */
import { it } from 'vitest';
import { createShellAnalyzer } from '../../src/shell/index.js';

const LINES = [
  'npm test',
  'git status && git diff',
  'cd /w && npm test 2>&1 | grep fail',
  'ls -la | head -20; cat package.json | wc -l > out.txt',
  'bash -lc "cd /w && npm run lint && git diff --stat"',
  'find . -name "*.tmp" -exec rm -f {} \\; && sudo timeout 5 env X=1 rm -rf "$HOME/x" > /tmp/log 2>&1',
];

it.skipIf(!process.env.SHELL_BENCH)('prints analysis timings', async () => {
  const started = performance.now();
  const cold = await createShellAnalyzer();
  console.log(`first createShellAnalyzer (wasm init + grammar load): ${(performance.now() - started).toFixed(1)} ms`);
  const uncached = await createShellAnalyzer({ cacheSize: 0 });
  const context = { cwd: '/w', home: '/home/dev' };
  for (const line of LINES) {
    for (let i = 0; i < 2_000; i++) uncached.analyze(line, context); // warm up the JIT
    const runs = 20_000;
    let start = performance.now();
    for (let i = 0; i < runs; i++) uncached.analyze(line, context);
    const parsed = ((performance.now() - start) / runs) * 1000;
    start = performance.now();
    for (let i = 0; i < runs; i++) cold.analyze(line, context);
    const cached = ((performance.now() - start) / runs) * 1000;
    console.log(`${parsed.toFixed(1).padStart(7)} µs uncached ${cached.toFixed(2).padStart(6)} µs cached  ${line}`);
  }
});
