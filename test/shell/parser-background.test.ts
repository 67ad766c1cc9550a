import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * The grammar stays on V8's baseline wasm compiler: without that, the first parses set off about a
 * second of optimizing compilation in background threads, which competes with the agent for the CPU
 * and delays a short command's exit. Checked as CPU consumed while idle, in a process of its own
 * (the flags are process-wide): ~1 s when the tier-up runs, a few ms when it does not.
 */
it('parsing sets off no background wasm compilation', () => {
  const parser = join(ROOT, 'dist', 'shell', 'parser.js');
  const script = `
    const { loadBashParser } = await import(${JSON.stringify(parser)});
    const parser = await loadBashParser();
    for (let i = 0; i < 50; i++) parser.parse('cd /w && echo $(date) > out' + i + '.txt && for f in *; do wc -l "$f"; done');
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const used = process.cpuUsage(before);
    console.log(JSON.stringify({ idleCpuMs: (used.user + used.system) / 1000 }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  const { idleCpuMs } = JSON.parse(run.stdout) as { idleCpuMs: number };
  expect(idleCpuMs).toBeLessThan(250);
});
