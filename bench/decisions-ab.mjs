#!/usr/bin/env node
/**
 * The decisions figure for several broker variants side by side, with the CPU each middle process
 * spent on its main thread and on its other threads (V8's optimising compiler and GC helpers): a
 * tool for deciding a change, not a figure for RESULTS.md (bench/run.mjs makes those).
 *
 *   node bench/decisions-ab.mjs [--rounds 6] [--mode cold|warm] [--n 5000]
 *     --variant 'NAME|NODE FLAGS|ENV=V,ENV=V|CLI' ...    (parts after NAME optional; CLI: another build)
 *
 * Each broker run gets a new state dir (a first start, as the bench's figure). The floor
 * (bench/bare-relay.mjs --answer-permissions) runs in every round; variants rotate.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePolicy, median, ROOT } from './lib.mjs';
import { decisionsOnce } from './sessions.mjs';
import { abTargets, rotatedRuns, variantsFrom } from './ab.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(option('--rounds', 6));
const MODE = option('--mode', 'cold');
const N = Number(option('--n', 5000));
const variants = variantsFrom(argv);

const NODE = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'decisions-ab-'));
const POLICY = join(work, 'policy-200.yaml');
writeFileSync(POLICY, generatePolicy().text);
const agent = [NODE, join(ROOT, 'bench', 'agents', 'rpc-agent.mjs')];
const targets = abTargets({ variants, work, policy: POLICY, agent, floorArgs: [join(ROOT, 'bench', 'bare-relay.mjs'), '--answer-permissions', '--', ...agent] });
const runs = await rotatedRuns(targets, ROUNDS, (target) => decisionsOnce(target, N, false, MODE, 2500, { cpu: true }));
const names = Object.keys(runs);
const perCall = (ms) => (ms / N * 1000).toFixed(0);
const of = (n, key) => median(runs[n].map((r) => r[key]));
for (const n of names) {
  console.log(`${n.padEnd(14)} ${MODE} wall ${perCall(of(n, 'ms'))} µs/call ×${(of(n, 'ms') / of('floor', 'ms')).toFixed(2)}   cpu: main ${perCall(of(n, 'main'))}, other threads ${perCall(of(n, 'others'))} µs/call   [wall ${runs[n].map((r) => perCall(r.ms)).join(' ')}]`);
}
