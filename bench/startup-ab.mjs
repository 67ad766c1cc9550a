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
import { finish, lineWaiter, median, ROOT, start } from './lib.mjs';
import { variantsFrom } from './ab.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(option('--rounds', 15));
const POLICY = option('--policy', join(ROOT, 'policies', 'default.yaml'));
const work = mkdtempSync(join(tmpdir(), 'startup-ab-'));
const agent = [process.execPath, join(ROOT, 'bench', 'agents', 'rpc-agent.mjs')];

const targets = { bare: { args: [join(ROOT, 'bench', 'bare-relay.mjs'), '--', ...agent], env: {}, cwd: work } };
for (const [name, flags = '', env = '', cli = ''] of variantsFrom(argv)) {
  const home = mkdtempSync(join(work, 'home-'));
  const extra = Object.fromEntries(env.split(',').filter(Boolean).map((kv) => kv.split('=')));
  targets[name] = { args: [...flags.split(' ').filter(Boolean), cli || join(ROOT, 'dist', 'bin', 'acp-broker.js'), 'run', '--policy', POLICY, '--', ...agent], env: { ACP_BROKER_HOME: home, ...extra }, cwd: home };
}

async function once({ args, env, cwd }) {
  const waiter = lineWaiter();
  const t0 = performance.now();
  const session = start(process.execPath, args, { env: { ...env, MODE: 'init' }, cwd, onLine: waiter.onLine });
  session.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
  await waiter.wait(session, (l) => l.includes('"id":0') && l.includes('"result"'), 'the initialize answer');
  const ms = performance.now() - t0;
  await finish(session);
  return ms;
}

const names = Object.keys(targets);
for (const name of names) await once(targets[name]); // the policy seen once, the file cache warm
const times = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let j = 0; j < names.length; j++) {
    const name = names[(round + j) % names.length];
    times[name].push(await once(targets[name]));
  }
}
for (const name of names) {
  const added = median(times[name].map((t, i) => t - times.bare[i]));
  console.log(`${name.padEnd(14)} ${median(times[name]).toFixed(0)} ms${name === 'bare' ? '' : `, +${added.toFixed(0)} ms over the bare relay`}   [${times[name].map((t) => t.toFixed(0)).join(' ')}]`);
}
