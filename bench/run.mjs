#!/usr/bin/env node
/**
 * `npm run bench`: what the broker costs, as ratios against the same work without it, measured in
 * one run with broker and baseline runs interleaved (absolute times on shared machines are noise;
 * ratios measured side by side are not). Uses the built dist/ (builds it when missing).
 *
 *   node bench/run.mjs                 all figures, table on stdout, bench/RESULTS.md rewritten
 *   node bench/run.mjs --quick         fewer runs and smaller workloads (a smoke test, not figures)
 *   node bench/run.mjs --only stream,startup,decisions,inprocess,shell,benign,memory,approvals
 *   node bench/run.mjs --no-write      do not rewrite bench/RESULTS.md
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalsFigure, approvalsRows } from './approvals.mjs';
import { AGENTS, CLI, finish, generatePolicy, lineWaiter, machine, median, memoryMb, ROOT, start } from './lib.mjs';
import { decisionsOnce, openSession, startupOnce, streamOnce, WARM_DELAY_MS as FULL_WARM_DELAY_MS } from './sessions.mjs';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const ONLY = argv.includes('--only') ? new Set(argv[argv.indexOf('--only') + 1].split(',')) : undefined;
const WRITE = !argv.includes('--no-write') && !QUICK;
const want = (name) => !ONLY || ONLY.has(name);

const NODE = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'acp-broker-bench-'));
// Removed however the run ends (a failed figure included).
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const policy = generatePolicy();
const POLICY = join(work, 'policy-200.yaml');
writeFileSync(POLICY, policy.text);
const DEFAULT_POLICY = join(ROOT, 'policies', 'default.yaml');
const NOTES_MARKER = '<!-- analysis: kept across runs of bench/run.mjs -->';

/**
 * The broker around an agent. Its state directory (audit, grants, the record of policies already
 * validated) is new for each run unless `home` is given: a reused one is the warm case, an editor
 * launching the broker again with a policy it has seen before.
 */
function brokerArgs(agent, policyFile = POLICY, home = mkdtempSync(join(work, 'home-'))) {
  return { command: NODE, args: [CLI, 'run', '--policy', policyFile, '--', NODE, ...agent], env: { ACP_BROKER_HOME: home }, cwd: home };
}
const direct = (agent) => ({ command: NODE, args: agent, env: {}, cwd: work });
/** bench/bare-relay.mjs around an agent: the floor for any Node middleware (see that file). */
const bareRelay = (agent, options = []) => ({ command: NODE, args: [join(ROOT, 'bench', 'bare-relay.mjs'), ...options, '--', NODE, ...agent], env: {}, cwd: work });

function log(message) {
  process.stderr.write(`${message}\n`);
}

/** `count` rounds of every measurement in `variants`, the order rotated each round; the times, by name. */
async function rounds(count, variants) {
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length];
      times[name].push(await variants[name]());
    }
  }
  return times;
}

/**
 * The two cases every session figure is measured in. cold: the client sends `go` (the first timed
 * line) the moment `session/new` is answered, as `exec` and many editors send their first prompt,
 * so the broker's own start-up work (deferred loading, rehearsal) may still be running. warm: the
 * client waits WARM_DELAY_MS after that answer, then has one permission request decided (untimed)
 * before `go`: whatever the broker does for itself in its first seconds is over.
 */
const MODES = ['cold', 'warm'];
const WARM_DELAY_MS = QUICK ? 1000 : FULL_WARM_DELAY_MS;
const KINDS = ['direct', 'broker', 'floor'];

/**
 * The broker, a floor (a bare Node relay doing the least the same job needs) and the agent direct,
 * each cold and warm, in the same rotated rounds. `run(kind, mode)` measures once, in ms. By mode:
 * medians, the broker over the floor (the target's ratio) and each over direct, with per-round ranges.
 */
async function coldAndWarm(count, run) {
  const variants = {};
  for (const mode of MODES) for (const kind of KINDS) variants[`${kind} ${mode}`] = () => run(kind, mode);
  const times = await rounds(count, variants);
  const range = (xs) => [Math.min(...xs), Math.max(...xs)];
  const summary = (mode) => {
    const t = (kind) => times[`${kind} ${mode}`];
    const over = (a, b) => ({ ratio: median(t(a)) / median(t(b)), range: range(t(a).map((x, i) => x / t(b)[i])) });
    return { broker: median(t('broker')), floor: median(t('floor')), direct: median(t('direct')),
      overFloor: over('broker', 'floor'), overDirect: over('broker', 'direct'), floorOverDirect: over('floor', 'direct') };
  };
  return { cold: summary('cold'), warm: summary('warm'), runs: count };
}

async function streamFigure(writes) {
  const count = QUICK ? 2 : 5;
  const env = { WRITES: writes, ...(QUICK ? { SMALL: '20000', BIG: '4' } : {}) };
  const agent = [join(AGENTS, 'stream-agent.mjs')];
  const targets = { broker: () => brokerArgs(agent), floor: () => bareRelay(agent), direct: () => direct(agent) };
  await streamOnce(direct(agent), env, 'cold', WARM_DELAY_MS); // warm the file cache
  return coldAndWarm(count, (kind, mode) => streamOnce(targets[kind](), env, mode, WARM_DELAY_MS));
}

// ------------------------------------------------------------------------------------------------
// start-up: spawn → `initialize` answered.

async function startupFigure() {
  const runs = QUICK ? 3 : 11;
  const agent = [join(AGENTS, 'rpc-agent.mjs')];
  const bare = bareRelay(agent);
  const warmHome = mkdtempSync(join(work, 'home-warm-'));
  const warmHome200 = mkdtempSync(join(work, 'home-warm200-'));
  const variants = {
    agent: () => startupOnce(direct(agent)),
    bare: () => startupOnce(bare),
    broker: () => startupOnce(brokerArgs(agent, DEFAULT_POLICY, warmHome)),
    broker200: () => startupOnce(brokerArgs(agent, POLICY, warmHome200)),
    cold: () => startupOnce(brokerArgs(agent, DEFAULT_POLICY)),
  };
  for (const name of Object.keys(variants)) await variants[name](); // warm caches
  const times = await rounds(runs, variants);
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  // Per-round differences: the broker against the bare relay measured in the same round.
  const addedBy = (name) => median(times[name].map((t, i) => t - times.bare[i]));
  return { ...m, added: addedBy('broker'), added200: addedBy('broker200'), addedCold: addedBy('cold'), runs };
}

// ------------------------------------------------------------------------------------------------
// decisions: N permission requests, one round trip each.

async function decisionsFigure() {
  const count = QUICK ? 2 : 5;
  const n = QUICK ? 500 : 5000;
  const agent = [join(AGENTS, 'rpc-agent.mjs')];
  const targets = {
    broker: () => brokerArgs(agent), floor: () => bareRelay(agent, ['--answer-permissions']), direct: () => direct(agent),
  };
  await decisionsOnce(direct(agent), n, true, 'cold', WARM_DELAY_MS);
  const result = await coldAndWarm(count, (kind, mode) => decisionsOnce(targets[kind](), n, kind === 'direct', mode, WARM_DELAY_MS));
  return { ...result, n };
}

// ------------------------------------------------------------------------------------------------
// memory: a long session of tool calls through one broker; RSS sampled every CHECK calls.

async function memoryFigure() {
  const n = QUICK ? 10_000 : 100_000;
  const check = QUICK ? 2_000 : 10_000;
  const agent = [join(AGENTS, 'rpc-agent.mjs')];
  const target = brokerArgs(agent);
  const samples = [];
  const waiter = lineWaiter();
  const t0 = performance.now();
  const session = start(target.command, target.args, {
    env: { ...target.env, MODE: 'memory', N: String(n), CHECK: String(check) }, cwd: target.cwd,
    onLine: (text, s) => {
      if (text.includes('_bench/progress')) {
        const { n: calls } = JSON.parse(text).params;
        samples.push({ calls, ...memoryMb(s.child.pid), seconds: (performance.now() - t0) / 1000 });
        s.send(JSON.stringify({ jsonrpc: '2.0', method: '_bench/continue' }));
      }
      waiter.onLine(text, s);
    },
  });
  await openSession(session, waiter, target.cwd);
  const result = waiter.wait(session, (l) => l.includes('_bench/result'), 'the result');
  session.send('go');
  await result;
  await finish(session);
  return { n, check, samples };
}

// ------------------------------------------------------------------------------------------------
// in-process: shell analysis + facts + evaluation per call (bench/shell-eval.mjs, the shell owner's).

function inprocessFigure() {
  const script = join(ROOT, 'bench', 'shell-eval.mjs');
  if (!existsSync(script)) return { error: 'bench/shell-eval.mjs is missing' };
  const run = spawnSync(NODE, [script, '--json'], { encoding: 'utf8', timeout: 300_000 });
  try {
    return JSON.parse(run.stdout);
  } catch {
    return { error: `bench/shell-eval.mjs failed: ${run.stderr.slice(-500)}` };
  }
}

// ------------------------------------------------------------------------------------------------
// shell: shell analysis alone, parser start-up and per line with the cache off and on (bench/shell-analysis.mjs).

function shellFigure() {
  const run = spawnSync(NODE, [join(ROOT, 'bench', 'shell-analysis.mjs'), '--json', ...(QUICK ? ['--quick'] : [])], { encoding: 'utf8', timeout: 600_000 });
  try {
    return JSON.parse(run.stdout);
  } catch {
    return { error: `bench/shell-analysis.mjs failed: ${run.stderr.slice(-500)}` };
  }
}

// ------------------------------------------------------------------------------------------------
// benign: share of everyday agent lines (test/shell/benign.yaml) that ask under default.yaml.

function benignFigure() {
  const run = spawnSync(NODE, [join(ROOT, 'bench', 'benign-share.mjs'), '--json'], { encoding: 'utf8', timeout: 120_000 });
  try {
    return JSON.parse(run.stdout);
  } catch {
    return { error: `bench/benign-share.mjs failed: ${run.stderr.slice(-500)}` };
  }
}

// ------------------------------------------------------------------------------------------------

function fmt(n, digits = 0) {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

async function main() {
  if (!existsSync(CLI)) {
    log('dist/ is missing: building it (tsc and the bundle, as `npm run build`)…');
    execFileSync(NODE, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
    execFileSync(NODE, [join(ROOT, 'scripts', 'bundle.mjs')], { stdio: 'inherit' });
  }
  const started = Date.now();
  const loadAtStart = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  const rows = [];
  const notes = [];
  const row = (figure, measured, baseline, compare, target, pass) => rows.push({ figure, measured, baseline, compare, target, result: pass === undefined ? '—' : pass ? 'PASS' : 'MISS' });

  /** Rows for one cold/warm figure: cold (the headline) first, warm beside it; each judged against its floor. */
  const sessionRows = (figure, r, measured, target, floorName) => {
    for (const mode of MODES) {
      const x = r[mode];
      const when = mode === 'cold' ? 'cold: go as session/new is answered' : `warm: go ${fmt(WARM_DELAY_MS / 1000, 1)} s later, after a warm-up request`;
      row(`${figure}, ${when}`, measured(x, 'broker'), `${measured(x, 'floor')} ${floorName}`,
        `×${fmt(x.overFloor.ratio, 2)} (rounds ×${fmt(x.overFloor.range[0], 2)}–×${fmt(x.overFloor.range[1], 2)})`, `≤ ×${fmt(target, 2)} of the ${floorName}`, x.overFloor.ratio <= target);
    }
  };
  const overDirect = (r) => MODES.map((mode) => {
    const x = r[mode];
    return `${mode}: direct ${fmt(x.direct)} ms, broker ×${fmt(x.overDirect.ratio, 2)} (rounds ×${fmt(x.overDirect.range[0], 2)}–×${fmt(x.overDirect.range[1], 2)}), floor ×${fmt(x.floorOverDirect.ratio, 2)} (rounds ×${fmt(x.floorOverDirect.range[0], 2)}–×${fmt(x.floorOverDirect.range[1], 2)})`;
  }).join('; ');

  if (want('stream')) {
    for (const writes of ['per-message', 'batched']) {
      log(`stream (${writes} writes)…`);
      const s = await streamFigure(writes);
      sessionRows(`stream: 200k small + 40×1 MiB lines, ${writes} writes`, s, (x, kind) => `${fmt(x[kind])} ms`, 1.1, 'bare relay');
      notes.push(`stream, ${writes} writes, against the agent read directly, in the same ${s.runs} rounds — ${overDirect(s)}. The floor is the bare Node relay (\`bench/bare-relay.mjs\`, pipes only).`);
    }
  }
  if (want('startup')) {
    log('start-up…');
    const s = await startupFigure();
    row('start-up: spawn → initialize answered (default policy, seen before)', `${fmt(s.broker)} ms`, `${fmt(s.bare)} ms bare relay`,
      `+${fmt(s.added)} ms`, '≤ +30 ms', s.added <= 30);
    row('start-up, 200-rule policy, seen before', `${fmt(s.broker200)} ms`, `${fmt(s.bare)} ms bare relay`, `+${fmt(s.added200)} ms`, '≤ +30 ms', s.added200 <= 30);
    row('start-up, default policy, first start (cold state dir)', `${fmt(s.cold)} ms`, `${fmt(s.bare)} ms bare relay`, `+${fmt(s.addedCold)} ms`, '≤ +30 ms', s.addedCold <= 30);
    notes.push(`start-up medians over ${s.runs} rounds: agent alone ${fmt(s.agent)} ms, bare Node relay ${fmt(s.bare)} ms, broker ${fmt(s.broker)} ms (default policy, state dir reused), ${fmt(s.broker200)} ms (200 rules, reused), ${fmt(s.cold)} ms (default policy, new state dir: the policy's examples are checked before the agent is spawned). "+ms" is the median of per-round differences against the bare relay.`);
  }
  if (want('decisions')) {
    log('decisions…');
    const d = await decisionsFigure();
    sessionRows(`decisions: ${d.n} round trips, 200-rule policy`, d, (x, kind) => `${fmt(x[kind])} ms (${fmt(x[kind] / d.n * 1000)} µs/call)`, 1.5, 'answering relay');
    notes.push(`decisions, against a client answering each request itself, in the same ${d.runs} rounds — ${overDirect(d)}. The floor is a bare Node relay that answers each permission request at once (\`bench/bare-relay.mjs --answer-permissions\`: one JSON.parse and one write, no policy, no analysis, no audit).`);
  }
  if (want('inprocess')) {
    log('in-process decision cost (bench/shell-eval.mjs)…');
    const p = inprocessFigure();
    if (p.error) {
      row('in-process: shell analysis + policy evaluation', 'error', '', p.error, '', false);
    } else {
      for (const r of p.rows) {
        const example = r.example ?? r.line ?? r.sample;
        row(`in-process, ${p.rules ?? 200} rules: ${r.case ?? r.name}${example ? ` (\`${example}\`)` : ''}`, `${fmt(r.medianUs ?? r.us, 2)} µs`, '', r.decision ?? '',
          `≤ ${r.targetUs ?? r.target} µs`, r.pass ?? (r.medianUs ?? r.us) <= (r.targetUs ?? r.target));
      }
    }
  }
  if (want('shell')) {
    log('shell analysis alone (bench/shell-analysis.mjs)…');
    const a = shellFigure();
    if (a.error) row('shell analysis alone', 'error', '', a.error, '', false);
    else {
      row('shell: first analyzer created (wasm init + grammar load)', `${fmt(a.firstCreateMs, 1)} ms`, '', '', 'reported', undefined);
      for (const r of a.rows) {
        row(`shell: analysis of \`${r.line}\``, `${fmt(r.uncachedUs, 1)} µs uncached`, '', `${fmt(r.cachedUs, 2)} µs cached`, 'reported', undefined);
      }
    }
  }
  if (want('benign')) {
    log('benign corpus under the default policy (bench/benign-share.mjs)…');
    const b = benignFigure();
    if (b.error) row('benign corpus: share that asks under default.yaml', 'error', '', b.error, '', false);
    else {
      row(`benign corpus: share of ${b.lines} everyday agent lines that ask under default.yaml`, `${fmt(100 * b.askShare, 1)} % ask`, '',
        `allow ${b.allow}, ask ${b.ask}, deny ${b.deny}`, 'reported (lower is better)', undefined);
      notes.push(`benign corpus (test/shell/benign.yaml) asks per group under default.yaml: ${Object.entries(b.byGroup).map(([g, x]) => `${g} ${x.ask}/${x.lines}`).join(', ')}.`);
    }
  }
  if (want('memory')) {
    log('memory (long session)…');
    const m = await memoryFigure();
    const first = m.samples[0];
    const last = m.samples.at(-1);
    const growth = last.rss - first.rss;
    row(`memory: broker RSS over ${m.n.toLocaleString('en')} tool calls`, `${fmt(last.rss, 1)} MB at ${last.calls.toLocaleString('en')} (peak ${fmt(last.peak, 1)})`,
      `${fmt(first.rss, 1)} MB at ${first.calls.toLocaleString('en')} (peak ${fmt(first.peak, 1)})`, `${growth >= 0 ? '+' : ''}${fmt(growth, 1)} MB`, 'flat: ≤ +10 MB', growth <= 10);
    notes.push(`memory samples (calls: RSS MB / peak MB, elapsed s): ${m.samples.map((s) => `${s.calls / 1000}k: ${fmt(s.rss, 1)}/${fmt(s.peak, 1)}, ${fmt(s.seconds, 1)} s`).join('; ')}.`);
  }
  if (want('approvals')) {
    log('approvals daemon (bench/approvals.mjs)…');
    const a = approvalsRows(await approvalsFigure({ quick: QUICK, work, log }), fmt);
    for (const r of a.rows) row(r.figure, r.measured, r.baseline, r.compare, r.target, r.pass);
    notes.push(...a.notes);
  }

  const elapsed = (Date.now() - started) / 1000;
  const table = [
    '| figure | broker | without broker | ratio / added | target | result |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${[r.figure, r.measured, r.baseline, r.compare, r.target, r.result].map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`),
  ].join('\n');
  const m = machine();
  const header = `${new Date().toISOString().slice(0, 10)} · nproc ${m.cpus} (${m.model ?? 'unknown'}) · ${m.memoryGb} GB RAM · node ${m.node} · ${m.platform} · load average at start ${loadAtStart} · bench took ${fmt(elapsed)} s`;
  process.stdout.write(`\n${header}\n\n${table}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`);
  if (WRITE) writeResults(header, table, notes);
  rmSync(work, { recursive: true, force: true });
  if (rows.some((r) => r.result === 'MISS')) process.exitCode = 1;
}

function writeResults(header, table, notes) {
  const text = `# Benchmark results

Measured by \`npm run bench\` (\`bench/run.mjs\`). Every broker figure is compared with the same work
without the broker, measured in the same run with the two interleaved: on these shared machines
absolute times are noise, ratios measured side by side are not. Rerun after a change and compare the
ratio column; a MISS is a regression (or a target not met yet).

**${header}**

${table}

${notes.map((n) => `- ${n}`).join('\n')}

How each figure is measured:

- **stream** — an agent (\`bench/agents/stream-agent.mjs\`) writes 200,000 small \`session/update\`
  notifications with forty 1 MiB lines among them; the client reads its stdout as fast as it can.
  Timed from the client's \`go\` to the last byte read, so process start is not in it. Target: the
  bare Node relay (\`bench/bare-relay.mjs\`, pipes only), the floor for any Node middleware; the
  agent read directly is measured too (in the notes). \`per-message\` writes each message separately
  (what the ACP SDK does); \`batched\` gathers 64 KiB per write (a buffered agent — the harder case
  for a relay, since the relay then does per-line work the agent did not).
- **cold and warm** (stream and decisions) — the client sends \`initialize\` and \`session/new\` (its
  cwd the run's), then, *cold*, \`go\` the moment \`session/new\` is answered: the broker's own
  start-up work (loading the parser and grants, the rehearsal) may still be running, and its first
  decision waits for them inside the timed part. *Warm*: \`go\` ${fmt(WARM_DELAY_MS / 1000, 1)} s after that
  answer, once one permission request has been decided (untimed). Broker, floor and direct, each
  cold and warm, in the same 5 rounds, the order rotated each round; medians, with the per-round
  ratios' range.
- **start-up** — from spawning to the \`initialize\` answer, against \`bench/bare-relay.mjs\` (Node
  spawning the agent and piping stdio, nothing else: the floor for any Node middleware), measured in
  the same rounds (11 rounds, order rotated). The broker loads the policy, the YAML parser, the
  tree-sitter parser and the grants store while the agent starts; decisions wait for them.
- **decisions** — the agent sends 5,000 permission requests (\`echo N && git status\`), each after the
  previous answer; the broker decides them with a generated 200-rule policy. Target: a bare Node
  relay answering each at once (\`--answer-permissions\`); the client answering each itself is
  measured too (in the notes). Timed by the agent, from reading \`go\` to reading the last answer.
- **in-process** — \`bench/shell-eval.mjs\` (shell analysis + facts + evaluation of one call against a
  200-rule policy; distinct lines vary a number so no cache hides the parse).
- **shell** — \`bench/shell-analysis.mjs\`: shell analysis alone. The first \`createShellAnalyzer\`
  (wasm init and grammar load, once per process), then per line the mean time over 20,000 calls
  with the analysis cache off (every call parses) and on (every call after the first is a hit),
  after a JIT warm-up. Reported, no target (the decision targets are in-process's).
- **benign** — \`bench/benign-share.mjs\`: every line of the benign corpus (\`test/shell/benign.yaml\`,
  everyday agent commands) decided as an execute request under \`policies/default.yaml\`; the share
  that asks (the rest is allowed or denied). A reported figure, no target: the fail-closed analysis
  trades asks for safety, and this shows the price.
- **memory** — one broker, 100,000 tool calls (\`tool_call\` → permission request → answer →
  \`tool_call_update\` completed, distinct ids); the broker's RSS (and peak, VmHWM) read from /proc at
  fixed points (the agent waits while it is read). Flat means: state is evicted, nothing grows per call.
- **approvals** — \`bench/approvals.mjs\`, through the built CLI: \`acp-broker daemon --no-desktop\` and
  \`acp-broker run --policy P -- node bench/agents/approval-agent.mjs\` (\`default: ask\`) in one
  ACP_BROKER_HOME; the bench is the broker's client and never answers, and the inbox's user (signed in
  with the token of \`acp-broker inbox --print\`, an SSE client on \`/api/events\`). *Request → stream*:
  the agent's \`session/request_permission\` write → the \`opened\` frame read; *answer → agent*:
  \`POST /api/answer\` sent → the answer's bytes read by the agent. One clock for both processes:
  \`process.hrtime.bigint()\` (CLOCK_MONOTONIC, machine-wide; checked against a child process first),
  the agent's readings reported through the broker. 200 rounds after 20 warm-up ones (the first
  round is the broker's first decision, which waits for its policy and parser to load); the
  "broker" column is the median, p90 and max beside it, and beside the stream figure the same
  request's arrival at the broker's client (the editor's dialog: the path without the daemon).
  *Memory*: 10 brokers each send 100 edit requests with 2 KB diffs at once; the daemon's heap
  (after a collection: it runs under \`--expose-gc\`) and RSS from its \`daemon/status\` once all
  1,000 are open and once all are answered through the inbox, four rounds; flat means the heap
  returns within 8 MiB of where it was before (as test/daemon/load.test.ts). RSS is reported, not
  judged: it grows over the first rounds and then stays (the allocator keeps what it got).
`;
  // Hand-written analysis below the marker survives reruns.
  const file = join(ROOT, 'bench', 'RESULTS.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const kept = previous.includes(NOTES_MARKER) ? previous.slice(previous.indexOf(NOTES_MARKER)) : `${NOTES_MARKER}\n`;
  writeFileSync(file, `${text}\n${kept}`);
  log('wrote bench/RESULTS.md');
}

await main();
