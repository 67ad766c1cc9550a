#!/usr/bin/env node
/**
 * The start-up figure (spawn → `initialize` answered, policy seen before) for several builds side by
 * side with the bare relay, rotated each round: a tool for deciding a change, not a figure for
 * RESULTS.md (bench/run.mjs makes those).
 *
 *   node bench/startup-ab.mjs [--rounds 15] [--policy FILE] --variant 'NAME|NODE FLAGS|ENV=V,ENV=V|CLI' ...
 *
 * Each variant keeps one state directory for all its rounds (after an untimed first start, the
 * policy is one it has seen); "+ms" is the median of per-round differences against the bare relay.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, ROOT } from './lib.mjs';
import { abTargets, rotatedRuns, variantsFrom } from './ab.mjs';
import { startupOnce } from './sessions.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(option('--rounds', 15));
const POLICY = option('--policy', join(ROOT, 'policies', 'default.yaml'));
const work = mkdtempSync(join(tmpdir(), 'startup-ab-'));
const agent = [process.execPath, join(ROOT, 'bench', 'agents', 'rpc-agent.mjs')];

const targets = abTargets({ variants: variantsFrom(argv), work, policy: POLICY, agent, floorArgs: [join(ROOT, 'bench', 'bare-relay.mjs'), '--', ...agent], seenBefore: true });
for (const name of Object.keys(targets)) await startupOnce({ command: process.execPath, ...targets[name]() }); // the policy seen once, the file cache warm
const times = await rotatedRuns(targets, ROUNDS, startupOnce);
for (const [name, runs] of Object.entries(times)) {
  const added = median(runs.map((t, i) => t - times.floor[i]));
  console.log(`${name.padEnd(14)} ${median(runs).toFixed(0)} ms${name === 'floor' ? ' (bare relay)' : `, +${added.toFixed(0)} ms over the bare relay`}   [${runs.map((t) => t.toFixed(0)).join(' ')}]`);
}
