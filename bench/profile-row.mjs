#!/usr/bin/env node
/**
 * One row of bench/shell-eval.mjs in a loop, for CPU profiles, allocation counts and a split of
 * the time by stage (not a figure: bench/shell-eval.mjs is).
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-row.mjs 1 [calls]   # row index 0..3
 *   node --min-semi-space-size=256 --max-semi-space-size=256 --expose-gc bench/profile-row.mjs 1 --alloc
 *   node bench/profile-row.mjs 1 --split     # analysis / facts beyond it / evaluation, µs per call
 */
import { extractFacts } from '../dist/facts/extract.js';
import { evaluate } from '../dist/policy/evaluate.js';
import { benchDecider, CASES } from './shell-eval.mjs';

const row = CASES[Number(process.argv[2] ?? 0)];
const calls = Number(process.argv.find((a, i) => i > 2 && /^\d+$/.test(a)) ?? 300_000);
const { decide, policy, context, shell, home } = await benchDecider();
const CYCLE = 50_000;
let offset = 0;
let sink = 0;
for (let i = 0; i < 20_000; i++) sink += decide(row.line(offset++ % CYCLE)).items.length;
if (process.argv.includes('--alloc')) {
  // With a young generation larger than what the loop allocates, no scavenge runs inside it.
  const n = 2_000;
  const lines = Array.from({ length: n }, () => row.line(offset++ % CYCLE));
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (const line of lines) sink += decide(line).items.length;
  const after = process.memoryUsage().heapUsed;
  console.log(`${row.name}: ${Math.round((after - before) / n)} bytes allocated per call`);
} else if (process.argv.includes('--split')) {
  // Same lines through each stage; the analysis stage runs on lines the cache has not seen (unless the row repeats).
  const n = 2_000;
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const times = { analysis: [], facts: [], evaluation: [] };
  for (let round = 0; round < 15; round++) {
    const lines = Array.from({ length: n }, () => row.line(offset++ % CYCLE));
    const calls = lines.map((line) => ({ toolCallId: 't', kind: 'execute', title: line, rawInput: { command: line } }));
    let t = process.hrtime.bigint();
    for (const line of lines) sink += shell.analyze(line, { cwd: context.workspace, home: context.home }).commands.length;
    times.analysis.push(Number(process.hrtime.bigint() - t) / 1000 / n);
    t = process.hrtime.bigint();
    const facts = calls.map((call) => extractFacts(call, context));
    times.facts.push(Number(process.hrtime.bigint() - t) / 1000 / n);
    t = process.hrtime.bigint();
    for (const f of facts) sink += evaluate(policy, f, { home }).items.length;
    times.evaluation.push(Number(process.hrtime.bigint() - t) / 1000 / n);
  }
  // Facts include a second analysis: a cache hit for lines parsed fully or seen twice.
  console.log(`${row.name}: analysis ${median(times.analysis).toFixed(2)} µs, facts (incl. a second analyze) ${median(times.facts).toFixed(2)} µs, evaluation ${median(times.evaluation).toFixed(2)} µs`);
} else {
  // CPU time as well as wall time: on a loaded machine the wall clock also counts time spent waiting for a core.
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) sink += decide(row.line(offset++ % CYCLE)).items.length;
  const used = process.cpuUsage(cpu);
  const wall = Number(process.hrtime.bigint() - start) / 1000 / calls;
  console.log(`${row.name}: ${wall.toFixed(2)} µs per call, ${((used.user + used.system) / calls).toFixed(2)} µs CPU`);
}
if (sink === 0) throw new Error('no items');
