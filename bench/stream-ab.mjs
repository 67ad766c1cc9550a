#!/usr/bin/env node
/**
 * The stream figure for several broker variants side by side, with the CPU each middle process
 * spent: a tool for deciding a change, not a figure for RESULTS.md (bench/run.mjs makes those).
 * Wall time on this 2-core guest drifts by tens of percent between minutes; the CPU the relay
 * itself spends (user + system, from /proc, in 10 ms ticks) moves much less, and on two cores
 * shared with the agent and the client it is what the wall time pays.
 *
 *   node bench/stream-ab.mjs [--rounds 10] [--writes batched|per-message] [--mode warm|cold]
 *     --variant 'NAME|NODE FLAGS|ENV=V,ENV=V|CLI' ...    (parts after NAME optional; CLI: another build)
 *   SMALL=… BIG=…   the stream agent's workload (bench/agents/stream-agent.mjs)
 *
 * e.g. `--variant 'old|||/tmp/old/dist/bin/acp-broker.js' --variant new`. The floor (bench/bare-relay.mjs)
 * runs in every round; variants rotate.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, ROOT } from './lib.mjs';
import { streamOnce } from './sessions.mjs';
import { abTargets, rotatedRuns, variantsFrom } from './ab.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(option('--rounds', 10));
const MODE = option('--mode', 'warm');
const WORKLOAD = { WRITES: option('--writes', 'batched'), ...(process.env.SMALL ? { SMALL: process.env.SMALL } : {}), ...(process.env.BIG ? { BIG: process.env.BIG } : {}) };
const variants = variantsFrom(argv);

const NODE = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'stream-ab-'));
const agent = [NODE, join(ROOT, 'bench', 'agents', 'stream-agent.mjs')];
const POLICY = join(ROOT, 'policies', 'default.yaml');
const targets = abTargets({ variants, work, policy: POLICY, agent, floorArgs: [join(ROOT, 'bench', 'bare-relay.mjs'), '--', ...agent] });
const runs = await rotatedRuns(targets, ROUNDS, (target) => streamOnce(target, WORKLOAD, MODE, 1000, { cpu: true }));
const names = Object.keys(runs);
const wall = (n) => median(runs[n].map((r) => r.ms));
const cpu = (n) => median(runs[n].map((r) => r.cpu));
for (const n of names) {
  console.log(`${n.padEnd(14)} wall ${wall(n).toFixed(0)} ms ×${(wall(n) / wall('floor')).toFixed(2)}   cpu ${cpu(n).toFixed(0)} ms ×${(cpu(n) / cpu('floor')).toFixed(2)}   [cpu ${runs[n].map((r) => r.cpu).join(' ')}]`);
}
