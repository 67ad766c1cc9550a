// One bench session, as an editor runs it: `initialize`, `session/new`, then — cold — `go` at once,
// or — warm — after a wait and one decided request; and a start up to `initialize` answered. Shared by
// bench/run.mjs, bench/tricks.mjs and the A/B tools.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { finish, lineWaiter, start } from './lib.mjs';

/** The warm case's default wait after `session/new` is answered. */
export const WARM_DELAY_MS = 2500;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU ms (user + system, 10 ms ticks) a process — or one of its threads, `/proc/PID/task/TID` — has used so far. */
function cpuMs(pid, task = '') {
  const fields = readFileSync(`/proc/${pid}${task}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms so far of a process's main thread and, together, of its other threads (V8's compiler and GC helpers). */
function threadsCpuMs(pid) {
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    try { others += cpuMs(pid, `/task/${tid}`); } catch { /* the thread ended meanwhile */ }
  }
  return { main: cpuMs(pid, `/task/${pid}`), others };
}
const answered = (id) => (l) => l.includes(`"id":"${id}"`) && (l.includes('"result"') || l.includes('"error"'));

/** What an editor does first: `initialize`, then `session/new` in the run's cwd; resolves once that is answered. */
export async function openSession(session, waiter, cwd) {
  const initialized = waiter.wait(session, answered('bench-init'), 'the initialize answer');
  session.send(JSON.stringify({ jsonrpc: '2.0', id: 'bench-init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
  await initialized;
  const opened = waiter.wait(session, answered('bench-new'), 'the session/new answer');
  session.send(JSON.stringify({ jsonrpc: '2.0', id: 'bench-new', method: 'session/new', params: { cwd, mcpServers: [] } }));
  const answer = JSON.parse(await opened);
  if (answer.result?.sessionId !== 'bench') throw new Error(`session/new was not answered with the bench session: ${JSON.stringify(answer).slice(0, 300)}`);
}

/** The warm case's wait before `go` (`warmDelayMs`, then one decided request); nothing is sent in the cold case. */
async function settle(session, waiter, mode, warmDelayMs) {
  if (mode === 'cold') return;
  await sleep(warmDelayMs);
  const warmed = waiter.wait(session, (l) => l.includes('_bench/warmed'), 'the warm-up request answered');
  session.send('warm');
  await warmed;
}

/**
 * A state dir (under `parent`) that has seen the policy: one start through `targetFor(home)`, long
 * enough for the broker to record what the policy loads to (src/startup/policy-snapshots.ts), as
 * any session longer than a second does: runs in it then start as every later start does.
 */
export async function seenHome(parent, targetFor) {
  const home = mkdtempSync(join(parent, 'seen-'));
  const target = targetFor(home);
  const waiter = lineWaiter();
  const session = start(target.command, target.args, { env: { ...target.env, MODE: 'init' }, cwd: parent, onLine: waiter.onLine });
  session.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
  await waiter.wait(session, (l) => l.includes('"id":0'), 'initialize');
  await sleep(1500);
  await finish(session);
  return home;
}

// ------------------------------------------------------------------------------------------------
// stream: the agent's output relayed to a client that reads as fast as it can.

/** ms from `go` to the last byte; with `{ cpu: true }`, `{ ms, cpu }`: also the CPU ms the middle process spent meanwhile (Linux). */
export async function streamOnce(target, env, mode, warmDelayMs = WARM_DELAY_MS, { cpu = false } = {}) {
  const waiter = lineWaiter();
  let timing = false;
  let expected = Infinity;
  let received = 0;
  let head = '';
  let t0 = 0;
  let t1 = 0;
  let cpu0 = 0;
  let cpu1 = 0;
  let resolveDone;
  const done = new Promise((r) => { resolveDone = r; });
  const session = start(target.command, target.args, {
    env: { ...target.env, ...env }, cwd: target.cwd,
    onData: (chunk, s) => {
      if (timing) {
        received += chunk.length;
        if (received >= expected && !t1) {
          t1 = performance.now();
          if (cpu) cpu1 = cpuMs(s.child.pid);
          resolveDone();
        }
        return;
      }
      // Before `go` the traffic is a few short lines (the agent writes nothing after its last answer until `go`).
      head += chunk.toString('utf8');
      for (let nl = head.indexOf('\n'); nl !== -1; nl = head.indexOf('\n')) {
        const line = head.slice(0, nl);
        head = head.slice(nl + 1);
        if (line.includes('_bench/ready')) expected = JSON.parse(line).params.bytes;
        if (line.includes('"warm-up"') && line.includes('request_permission')) {
          // No broker: the client answers the warm-up request itself.
          s.send(JSON.stringify({ jsonrpc: '2.0', id: 'warm-up', result: { outcome: { outcome: 'selected', optionId: 'allow' } } }));
        }
        waiter.onLine(line, s);
      }
    },
  });
  const ended = session.exit.then(() => { throw new Error(`stream run ended early: ${session.stderr()}`); });
  await Promise.race([(async () => {
    await openSession(session, waiter, target.cwd);
    await settle(session, waiter, mode, warmDelayMs);
  })(), ended]);
  if (!Number.isFinite(expected)) throw new Error('the stream agent did not announce its size');
  if (cpu) cpu0 = cpuMs(session.child.pid);
  timing = true;
  t0 = performance.now();
  session.send('go');
  await Promise.race([done, ended]);
  await finish(session);
  return cpu ? { ms: t1 - t0, cpu: cpu1 - cpu0 } : t1 - t0;
}

/**
 * `marks`: also collect the ms at every `marks`-th answer, passed to `onMarks`. With `{ cpu: true }`,
 * `{ ms, main, others }`: also the CPU ms the middle process's main thread and its other threads spent
 * from `go` to the result (Linux).
 */
export async function decisionsOnce(target, n, answerAll, mode, warmDelayMs = WARM_DELAY_MS, { marks = 0, onMarks, cpu = false } = {}) {
  const waiter = lineWaiter();
  const session = start(target.command, target.args, {
    env: { ...target.env, MODE: 'decisions', N: String(n), ...(marks ? { MARKS: String(marks) } : {}) }, cwd: target.cwd,
    onLine: (text, s) => {
      if (answerAll && text.includes('"session/request_permission"')) {
        // The client with no broker in between: parse and answer at once.
        const m = JSON.parse(text);
        s.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { outcome: { outcome: 'selected', optionId: 'allow' } } }));
      }
      waiter.onLine(text, s);
    },
  });
  await openSession(session, waiter, target.cwd);
  await settle(session, waiter, mode, warmDelayMs);
  const result = waiter.wait(session, (l) => l.includes('_bench/result'), 'the result');
  const before = cpu ? threadsCpuMs(session.child.pid) : undefined;
  session.send('go');
  const { ms, marks: at } = JSON.parse(await result).params;
  const after = cpu ? threadsCpuMs(session.child.pid) : undefined;
  if (at) onMarks?.(at);
  await finish(session);
  return before && after ? { ms, main: after.main - before.main, others: after.others - before.others } : ms;
}

/** Spawn → `initialize` answered, in ms (the start-up figure): `target` is `{ command, args, env, cwd }`. */
export async function startupOnce(target) {
  const waiter = lineWaiter();
  const t0 = performance.now();
  const session = start(target.command, target.args, { env: { ...target.env, MODE: 'init' }, cwd: target.cwd, onLine: waiter.onLine });
  session.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
  await waiter.wait(session, (l) => l.includes('"id":0') && l.includes('"result"'), 'the initialize answer');
  const ms = performance.now() - t0;
  await finish(session);
  return ms;
}
