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
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finish, lineWaiter, median, ROOT, start } from './lib.mjs';
import { openSession } from './sessions.mjs';

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

/** CPU ms (user + system) a process has used so far. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One run: `go` (after a warm-up request when warm), then until the client has read every byte. */
async function measure(target) {
  const waiter = lineWaiter();
  let timing = false;
  let expected = Infinity;
  let received = 0;
  let head = '';
  let end;
  const done = new Promise((resolve) => { end = resolve; });
  const session = start(NODE, target.args, {
    env: { ...target.env, ...WORKLOAD }, cwd: target.cwd,
    onData: (chunk, s) => {
      if (timing) {
        received += chunk.length;
        if (received >= expected) end({ at: performance.now(), cpu: cpuMs(s.child.pid) });
        return;
      }
      head += chunk.toString('utf8');
      for (let nl = head.indexOf('\n'); nl !== -1; nl = head.indexOf('\n')) {
        const line = head.slice(0, nl);
        head = head.slice(nl + 1);
        if (line.includes('_bench/ready')) expected = JSON.parse(line).params.bytes;
        if (line.includes('"warm-up"') && line.includes('request_permission')) {
          s.send(JSON.stringify({ jsonrpc: '2.0', id: 'warm-up', result: { outcome: { outcome: 'selected', optionId: 'allow' } } }));
        }
        waiter.onLine(line, s);
      }
    },
  });
  await openSession(session, waiter, target.cwd);
  if (MODE === 'warm') {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const warmed = waiter.wait(session, (l) => l.includes('_bench/warmed'), 'the warm-up request answered');
    session.send('warm');
    await warmed;
  }
  const cpu0 = cpuMs(session.child.pid);
  timing = true;
  const t0 = performance.now();
  session.send('go');
  const { at, cpu } = await done;
  await finish(session);
  return { ms: at - t0, cpu: cpu - cpu0 };
}

const names = Object.keys(targets);
const runs = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let j = 0; j < names.length; j++) {
    const name = names[(round + j) % names.length];
    runs[name].push(await measure(targets[name]()));
  }
}
const wall = (n) => median(runs[n].map((r) => r.ms));
const cpu = (n) => median(runs[n].map((r) => r.cpu));
for (const n of names) {
  console.log(`${n.padEnd(14)} wall ${wall(n).toFixed(0)} ms ×${(wall(n) / wall('floor')).toFixed(2)}   cpu ${cpu(n).toFixed(0)} ms ×${(cpu(n) / cpu('floor')).toFixed(2)}   [cpu ${runs[n].map((r) => r.cpu).join(' ')}]`);
}
