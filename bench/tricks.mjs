#!/usr/bin/env node
/**
 * What each start-up trick buys in the cold session (issue 14 point 2): the stream and decisions
 * figures, cold (`go` the moment `session/new` is answered), with every trick on and with each left
 * out (ACP_BROKER_TRICKS_OFF, src/startup/tricks.ts), beside the floors, in the same rotated rounds.
 * Twice: a first start (new state dir: the policy is validated before the agent starts, no early
 * spawn) and a start with a policy seen before (early spawn and the loading gate apply).
 *
 *   node bench/tricks.mjs [--rounds N] [--only decisions,batched,per-message] [--warm] [--json]
 *
 * --warm: the warm case instead (`go` 2.5 s after `session/new`, after one decided request): what a
 * trick buys when the broker had time to itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, CLI, generatePolicy, median, ROOT } from './lib.mjs';
import { decisionsOnce, seenHome, streamOnce, WARM_DELAY_MS } from './sessions.mjs';

const argv = process.argv.slice(2);
const ROUNDS = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 5;
const ONLY = argv.includes('--only') ? new Set(argv[argv.indexOf('--only') + 1].split(',')) : undefined;
const N = 5000;
const MODE = argv.includes('--warm') ? 'warm' : 'cold';
const NODE = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'acp-broker-tricks-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const POLICY = join(work, 'policy-200.yaml');
writeFileSync(POLICY, generatePolicy().text);

const RPC = [join(AGENTS, 'rpc-agent.mjs')];
const STREAM = [join(AGENTS, 'stream-agent.mjs')];
const broker = (agent, off, home) => ({
  command: NODE, args: [CLI, 'run', '--policy', POLICY, '--', NODE, ...agent],
  env: { ACP_BROKER_HOME: home ?? mkdtempSync(join(work, 'home-')), ...(off ? { ACP_BROKER_TRICKS_OFF: off } : {}) }, cwd: work,
});
const floor = (agent, options = []) => ({ command: NODE, args: [join(ROOT, 'bench', 'bare-relay.mjs'), ...options, '--', NODE, ...agent], env: {}, cwd: work });

// Broker variants: [name, tricks left out, state dir (undefined: a new one each run)].
const FIRST = [['first start, all tricks', ''], ['first start, no rehearsal', 'rehearsal'], ['first start, no JIT flags', 'jit'], ['first start, no yielding', 'yield']];
const SEEN_OFF = [['seen before, all tricks', ''], ['seen before, no rehearsal', 'rehearsal'], ['seen before, no JIT flags', 'jit'],
  ['seen before, no loading gate', 'gate'], ['seen before, no yielding', 'yield'], ['seen before, no early spawn', 'early-spawn']];

const figures = {
  decisions: { floor: () => floor(RPC, ['--answer-permissions']), broker: (off, home) => broker(RPC, off, home),
    once: (target, kind) => decisionsOnce(target, N, false, MODE, WARM_DELAY_MS, { marks: 500, onMarks: (m) => curves[kind]?.push(m) }) },
  batched: { floor: () => floor(STREAM), broker: (off, home) => broker(STREAM, off, home), once: (t) => streamOnce(t, { WRITES: 'batched' }, MODE, WARM_DELAY_MS) },
  'per-message': { floor: () => floor(STREAM), broker: (off, home) => broker(STREAM, off, home), once: (t) => streamOnce(t, { WRITES: 'per-message' }, MODE, WARM_DELAY_MS) },
};
const curves = {};

async function main() {
  const homes = {};
  for (const [name] of SEEN_OFF) homes[name] = await seenHome(work, (home) => broker(RPC, undefined, home));
  const variants = {};
  for (const [figure, f] of Object.entries(figures)) {
    if (ONLY && !ONLY.has(figure)) continue;
    variants[`${figure} | floor`] = () => f.once(f.floor(), `${figure} | floor`);
    for (const [name, off] of FIRST) variants[`${figure} | ${name}`] = () => f.once(f.broker(off), `${figure} | ${name}`);
    for (const [name, off] of SEEN_OFF) variants[`${figure} | ${name}`] = () => f.once(f.broker(off, homes[name]), `${figure} | ${name}`);
  }
  for (const name of Object.keys(variants)) if (name.startsWith('decisions')) curves[name] = [];
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  const load = os.loadavg()[0];
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(r + j) % names.length];
      times[name].push(await variants[name]());
    }
    process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
  }
  const result = { mode: MODE, rounds: ROUNDS, loadAtStart: load, loadAtEnd: os.loadavg()[0], rows: [] };
  for (const name of names) {
    const [figure, variant] = name.split(' | ');
    const floorTimes = times[`${figure} | floor`];
    const ratios = times[name].map((t, i) => t / floorTimes[i]);
    const curve = curves[name]?.length ? curveOf(curves[name]) : undefined;
    result.rows.push({ figure, variant, ms: median(times[name]), overFloor: median(times[name]) / median(floorTimes),
      range: [Math.min(...ratios), Math.max(...ratios)], ...(curve ? { usPerCallBy500: curve } : {}) });
  }
  if (argv.includes('--json')) { process.stdout.write(`${JSON.stringify(result, null, 2)}\n`); return; }
  process.stdout.write(`${MODE}, ${ROUNDS} rounds, load ${load.toFixed(1)} → ${result.loadAtEnd.toFixed(1)}\n\n| figure | variant | median | over the floor (rounds) |\n|---|---|---|---|\n`);
  for (const row of result.rows) {
    process.stdout.write(`| ${row.figure} | ${row.variant} | ${row.ms.toFixed(0)} ms | ${row.variant === 'floor' ? '—' : `×${row.overFloor.toFixed(2)} (×${row.range[0].toFixed(2)}–×${row.range[1].toFixed(2)})`} |\n`);
  }
  process.stdout.write('\nDecisions, µs per call in each stretch of 500 (medians over rounds):\n');
  for (const row of result.rows) if (row.usPerCallBy500) process.stdout.write(`- ${row.variant}: ${row.usPerCallBy500.map((u) => u.toFixed(0)).join(' ')}\n`);
}

/** Per-round marks (ms at every 500th answer) → the median µs per call of each stretch. */
function curveOf(runs) {
  const stretches = runs[0].map((_, k) => median(runs.map((m) => ((m[k] - (k ? m[k - 1] : 0)) * 1000) / 500)));
  return stretches;
}

await main();
