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

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(option('--rounds', 10));
const MODE = option('--mode', 'warm');
const WORKLOAD = { WRITES: option('--writes', 'batched'), ...(process.env.SMALL ? { SMALL: process.env.SMALL } : {}), ...(process.env.BIG ? { BIG: process.env.BIG } : {}) };
const variants = argv.flatMap((a, i) => (a === '--variant' ? [argv[i + 1].split('|')] : []));
if (variants.length === 0) variants.push(['broker']);

const NODE = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'stream-ab-'));
const agent = [NODE, join(ROOT, 'bench', 'agents', 'stream-agent.mjs')];
const POLICY = join(ROOT, 'policies', 'default.yaml');
const targets = {
  floor: () => ({ args: [join(ROOT, 'bench', 'bare-relay.mjs'), '--', ...agent], env: {}, cwd: work }),
  ...Object.fromEntries(variants.map(([name, flags = '', env = '', cli = '']) => [name, () => {
    const home = mkdtempSync(join(work, 'home-'));
    const extra = Object.fromEntries(env.split(',').filter(Boolean).map((kv) => kv.split('=')));
    const args = [...flags.split(' ').filter(Boolean), cli || join(ROOT, 'dist', 'bin', 'acp-broker.js'), 'run', '--policy', POLICY, '--', ...agent];
    return { args, env: { ACP_BROKER_HOME: home, ...extra }, cwd: home };
  }])),
};

const names = Object.keys(targets);
const runs = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let j = 0; j < names.length; j++) {
    const name = names[(round + j) % names.length];
    const target = { command: NODE, ...targets[name]() };
    runs[name].push(await streamOnce(target, WORKLOAD, MODE, 1000, { cpu: true }));
  }
}
const wall = (n) => median(runs[n].map((r) => r.ms));
const cpu = (n) => median(runs[n].map((r) => r.cpu));
for (const n of names) {
  console.log(`${n.padEnd(14)} wall ${wall(n).toFixed(0)} ms ×${(wall(n) / wall('floor')).toFixed(2)}   cpu ${cpu(n).toFixed(0)} ms ×${(cpu(n) / cpu('floor')).toFixed(2)}   [cpu ${runs[n].map((r) => r.cpu).join(' ')}]`);
}
