#!/usr/bin/env node
/**
 * The cold first request's wait: the ms from `go` (sent the moment `session/new` is answered) to
 * the first answer, and to the last of N, in a session whose policy the state dir has seen before
 * (early spawn, deferred loading) — or, with --first, in a new state dir. Builds alternate round by
 * round, so the host's load falls on each alike.
 *
 *   node bench/first-wait.mjs [--rounds N] [--n 600] [--first] [--policy FILE] [NAME=CLI ...]
 *
 * Without NAME=CLI pairs, the CLI of bench/lib.mjs (dist/bin, or ACP_BENCH_CLI). The policy is the
 * bench's generated 200-rule policy unless --policy names one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AGENTS, CLI, generatePolicy, median } from './lib.mjs';
import { decisionsOnce, seenHome } from './sessions.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(option('--rounds', 10));
const N = Number(option('--n', 600));
const FIRST = argv.includes('--first');
const NODE = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'acp-broker-first-wait-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const POLICY = option('--policy', join(work, 'policy-200.yaml'));
if (!argv.includes('--policy')) writeFileSync(POLICY, generatePolicy().text);
const builds = argv.filter((a) => a.includes('=')).map((a) => { const [name, cli] = a.split('=', 2); return [name, resolve(cli)]; });
if (builds.length === 0) builds.push(['this build', CLI]);
const RPC = join(AGENTS, 'rpc-agent.mjs');

const target = (cli, home) => ({ command: NODE, args: [cli, 'run', '--policy', POLICY, '--', NODE, RPC], env: { ACP_BROKER_HOME: home }, cwd: work });

const homes = {};
for (const [name, cli] of builds) if (!FIRST) homes[name] = await seenHome(work, (home) => target(cli, home));
const figures = Object.fromEntries(builds.map(([name]) => [name, { first: [], all: [] }]));
const load = os.loadavg()[0];
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < builds.length; j++) {
    const [name, cli] = builds[(r + j) % builds.length];
    let first;
    const all = await decisionsOnce(target(cli, homes[name] ?? mkdtempSync(join(work, 'new-'))), N, false, 'cold', 0, { marks: 1, onMarks: (m) => { first = m[0]; } });
    figures[name].first.push(first);
    figures[name].all.push(all);
  }
}
const fmt = (values) => `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
process.stdout.write(`${FIRST ? 'first start' : 'seen before'}, cold, ${ROUNDS} rounds of ${N} requests, load ${load.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}\n\n`);
process.stdout.write('| build | first answer after `go` | all answered |\n|---|---|---|\n');
for (const [name] of builds) process.stdout.write(`| ${name} | ${fmt(figures[name].first)} | ${fmt(figures[name].all)} |\n`);
