/**
 * The approvals daemon's figures for bench/run.mjs (`--only approvals`), measured through the built
 * CLI: `acp-broker daemon --no-desktop` (under `node --expose-gc`, so its `daemon/status` reports
 * the heap after a collection) and `acp-broker run --policy P -- node bench/agents/approval-agent.mjs`
 * in the same ACP_BROKER_HOME. This process is the brokers' client, which never answers a
 * permission request (the policy is `default: ask`), and the inbox's only user: signed in with the
 * token `acp-broker inbox --print` prints, an SSE client on /api/events, answers by POST /api/answer.
 *
 * - request → inbox stream: the agent's `session/request_permission` write → the `opened` frame
 *   read by the SSE client (through the broker's policy and escalation, its daemon channel, the
 *   daemon's registry and the inbox);
 * - inbox answer → agent: POST /api/answer sent → the answer's bytes read by the agent (the inbox,
 *   the registry, the socket back to the broker, the broker's settlement, its write to the agent).
 *
 * One clock: the agent and this process both read `process.hrtime.bigint()`, which on Linux is
 * CLOCK_MONOTONIC, the same clock for every process of the machine (checked against a child process
 * before measuring); the agent reports its readings as `_bench/*` notifications through the broker.
 *
 * - memory: 10 brokers (2 with --quick), each agent sending 100 edit requests (50 with --quick;
 *   diffs of 2 KB old and new text) at once; the daemon's heap and RSS once all are open, and again once all are answered through
 *   the inbox; four rounds (two with --quick), as test/daemon/load.test.ts does two.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENTS, CLI, ROOT, finish, lineWaiter, median, sseParser, start } from './lib.mjs';

const NODE = process.execPath;
const POLICY_TEXT = 'version: 1\ndefault: ask\nnon_interactive: deny\nrules: []\n';
const AGENT = join(AGENTS, 'approval-agent.mjs');
const clock = () => process.hrtime.bigint();
const msBetween = (from, to) => Number(BigInt(to) - BigInt(from)) / 1e6;
const MIB = 1024 * 1024;

/** Nearest-rank percentile. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function until(check, ms, what) {
  const t0 = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** This process's and a child's readings of process.hrtime.bigint() must be of one clock. */
function checkSharedClock() {
  const before = clock();
  const run = spawnSync(NODE, ['-e', 'process.stdout.write(String(process.hrtime.bigint()))'], { encoding: 'utf8' });
  const after = clock();
  const child = BigInt(run.stdout);
  if (child < before || child > after) {
    throw new Error(`process.hrtime is not one clock across processes here (child ${child} outside [${before}, ${after}]): the approvals latencies cannot be measured this way`);
  }
}

/** Every process started here, stopped (gracefully, then by force) in `stopAll`, also on failure. */
function processes() {
  const running = new Set();
  const killAll = () => { for (const s of running) s.child.kill('SIGKILL'); };
  // Signalled alone (not with its process group), the bench would leave the daemon running.
  const onSignal = (signal) => { killAll(); process.exit(signal === 'SIGINT' ? 130 : 143); };
  process.on('exit', killAll);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    start(command, args, options) {
      const session = start(command, args, options);
      running.add(session);
      void session.exit.then(() => running.delete(session));
      return session;
    },
    async stopAll() {
      await Promise.all([...running].map(async (s) => {
        // A broker ends with its client's stdin (and ends its agent); the daemon with SIGTERM.
        if (s.daemon) s.child.kill('SIGTERM');
        await finish(s);
      }));
      process.off('exit', killAll);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** The inbox as its user sees it: sign-in, an SSE stream, answers. */
async function openInbox(url) {
  const { origin, port } = new URL(url);
  const host = `127.0.0.1:${port}`;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const http = (method, path, headers = {}, body = undefined) => new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { host, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
  const signIn = await http('GET', new URL(url).pathname + new URL(url).search);
  const setCookie = signIn.headers['set-cookie']?.[0];
  if (signIn.status !== 303 || !setCookie) throw new Error(`inbox sign-in: HTTP ${signIn.status} ${signIn.body}`);
  const cookie = setCookie.split(';')[0];

  const listeners = new Set();
  let stream;
  const connected = new Promise((resolve, reject) => {
    stream = request({ host: '127.0.0.1', port, path: '/api/events', headers: { host, cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`inbox events: HTTP ${res.statusCode}`)); return; }
      res.setEncoding('utf8');
      res.on('data', sseParser((event, data, at) => {
        if (event === 'snapshot') resolve();
        if (data !== undefined) for (const listener of listeners) listener(event, JSON.parse(data), at);
      }, clock));
    });
    stream.on('error', reject);
    stream.end();
  });
  await within(connected, 10_000, 'the inbox event stream');
  return {
    /** `listener(event, data, at)` for every frame; returns the function that removes it. */
    listen(listener) { listeners.add(listener); return () => listeners.delete(listener); },
    answer: (id, optionId) => http('POST', '/api/answer', { cookie, origin, 'content-type': 'application/json' }, JSON.stringify({ id, optionId })),
    close() { stream.destroy(); agent.destroy(); },
  };
}

/** A broker around the approval agent, with this process as its client (which never answers). */
async function startBroker(procs, { home, policy, workspace, env }) {
  const notes = lineWaiter();
  const replies = lineWaiter();
  /** The permission requests the broker forwards to this process (the editor's dialogs), with when each was read. */
  const dialogs = {
    waiting: new Map(),
    onLine(text, _s, at) {
      const tag = /--tag r(\d+)"/.exec(text)?.[1];
      this.waiting.get(tag)?.(at);
      this.waiting.delete(tag);
    },
  };
  const broker = procs.start(NODE, [CLI, 'run', '--policy', policy, '--', NODE, AGENT], {
    env: { ACP_BROKER_HOME: home, ...env }, cwd: workspace,
    onLine: (text, s) => {
      if (text.includes('"_bench/')) notes.onLine(text, s);
      else if (text.includes('"session/request_permission"')) dialogs.onLine(text, s, clock());
      else replies.onLine(text, s);
    },
  });
  const call = async (id, method, params) => {
    broker.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return within(replies.wait(broker, (l) => l.includes(`"id":${id},`) || l.includes(`"id":${id}}`), method), 30_000, method);
  };
  await call(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await call(2, 'session/new', { cwd: workspace, mcpServers: [] });
  return {
    broker,
    go: (round) => broker.send(JSON.stringify({ jsonrpc: '2.0', method: '_bench/go', params: { round } })),
    /** When the broker's forward of round `round`'s request to its client (this process) is read. */
    dialog: (round) => within(new Promise((resolve) => dialogs.waiting.set(String(round), resolve)), 30_000, `the editor's dialog for round ${round}`),
    /** The agent's next `_bench/<name>` report for `round`. */
    report: (name, round) => within(
      notes.wait(broker, (l) => l.includes(`"_bench/${name}"`) && JSON.parse(l).params.round === round, `_bench/${name}`).then((l) => JSON.parse(l).params),
      30_000, `the agent's _bench/${name} for round ${round}`),
  };
}

async function latencyRounds(inbox, broker, rounds, warmUp) {
  const toStream = [];
  const toAgent = [];
  /** The same request reaching the broker's client: the editor's dialog, the path without the daemon. */
  const toEditor = [];
  /** The first round, not counted: the broker's and the daemon's first approval. */
  let first;
  const opened = new Map();
  const settled = new Map();
  // A frame may arrive before or after its round waits for it: whichever comes second completes the pair.
  const waitFor = (map, key) => new Promise((resolve) => {
    const value = map.get(key);
    if (value === undefined) map.set(key, resolve);
    else { map.delete(key); resolve(value); }
  });
  const deliver = (map, key, value) => { const r = map.get(key); if (typeof r === 'function') { map.delete(key); r(value); } else map.set(key, value); };
  const stop = inbox.listen((event, data, at) => {
    if (event === 'opened') deliver(opened, /--tag r(\d+)$/.exec(data.request.command ?? '')?.[1], { id: data.id, at });
    if (event === 'settled') deliver(settled, data.id, true);
  });
  try {
    for (let round = 0; round < warmUp + rounds; round++) {
      const sent = broker.report('sent', round);
      const answered = broker.report('answered', round);
      const frame = within(waitFor(opened, String(round)), 30_000, `the inbox's opened frame for round ${round}`);
      const dialog = broker.dialog(round);
      broker.go(round);
      const [{ at: sentAt }, { id, at: streamAt }, dialogAt] = await Promise.all([sent, frame, dialog]);
      const done = within(waitFor(settled, id), 30_000, `the inbox's settled frame for round ${round}`);
      const postAt = clock();
      const reply = await inbox.answer(id, 'allow');
      if (reply.status !== 200) throw new Error(`inbox answer: HTTP ${reply.status} ${reply.body}`);
      const { at: answerAt, result } = await answered;
      if (result?.outcome?.optionId !== 'allow') throw new Error(`the agent got ${JSON.stringify(result)} instead of its allow option`);
      await done;
      if (round === 0) first = { toStream: msBetween(sentAt, streamAt), toAgent: msBetween(postAt, answerAt), toEditor: msBetween(sentAt, dialogAt) };
      if (round < warmUp) continue;
      toStream.push(msBetween(sentAt, streamAt));
      toEditor.push(msBetween(sentAt, dialogAt));
      toAgent.push(msBetween(postAt, answerAt));
    }
  } finally {
    stop();
  }
  return { toStream, toAgent, toEditor, first };
}

async function memoryRounds(inbox, brokers, status, perBroker, roundsCount) {
  const pendingIds = [];
  const stop = inbox.listen((event, data) => { if (event === 'opened') pendingIds.push(data.id); });
  const total = brokers.length * perBroker;
  const baseline = await status();
  const samples = [{ label: 'baseline', ...baseline }];
  try {
    for (let round = 0; round < roundsCount; round++) {
      pendingIds.length = 0;
      const answered = brokers.map((b) => b.report('burst-answered', round));
      brokers.forEach((b) => b.go(round));
      await until(() => pendingIds.length >= total, 60_000, `${total} approvals in the inbox`);
      const open = await status();
      if (open.pending !== total) throw new Error(`the daemon reports ${open.pending} open approvals, expected ${total}`);
      samples.push({ label: `round ${round + 1}, ${total} open`, ...open });
      // Answered through the inbox, a few at a time (one keep-alive connection).
      for (const [i, id] of pendingIds.entries()) {
        const reply = await inbox.answer(id, i % 2 === 0 ? 'allow' : 'reject');
        if (reply.status !== 200) throw new Error(`inbox answer: HTTP ${reply.status} ${reply.body}`);
      }
      const reports = await Promise.all(answered);
      const answers = reports.reduce((n, r) => n + Object.values(r.answers).reduce((a, b) => a + b, 0), 0);
      if (answers !== total || reports.some((r) => Object.keys(r.answers).some((k) => k !== 'allow' && k !== 'reject'))) {
        throw new Error(`the agents got ${JSON.stringify(reports.map((r) => r.answers))}`);
      }
      const after = await until(async () => { const s = await status(); return s.pending === 0 && s; }, 10_000, 'no open approvals');
      samples.push({ label: `round ${round + 1}, answered`, ...after });
    }
  } finally {
    stop();
  }
  return { samples, total, baseline };
}

/**
 * The approvals figures; `options.quick` for a smoke run. Every process started is stopped before
 * this returns or throws.
 */
export async function approvalsFigure({ quick, work, log }) {
  const rounds = quick ? 20 : 200;
  const warmUp = quick ? 3 : 20;
  const burstBrokers = quick ? 2 : 10;
  const perBroker = quick ? 50 : 100;
  // The daemon's RSS settles after a few rounds (the heap at once): four show the plateau.
  const memoryRoundsCount = quick ? 2 : 4;
  checkSharedClock();
  const home = mkdtempSync(join(work, 'approvals-home-'));
  const workspace = join(home, 'workspace');
  mkdirSync(workspace);
  const policy = join(home, 'policy.yaml');
  writeFileSync(policy, POLICY_TEXT);
  const env = { ACP_BROKER_HOME: home };
  const procs = processes();
  let control;
  let inbox;
  try {
    const daemon = procs.start(NODE, ['--expose-gc', CLI, 'daemon', '--no-desktop'], { env, cwd: home });
    daemon.daemon = true;
    await until(() => /listening on/.test(daemon.stderr()) || daemon.child.exitCode !== null, 15_000, 'the daemon to listen');
    if (daemon.child.exitCode !== null) throw new Error(`the daemon exited: ${daemon.stderr()}`);
    const printed = spawnSync(NODE, [CLI, 'inbox', '--print'], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
    const url = printed.stdout.trim();
    if (printed.status !== 0 || !/^http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(url)) throw new Error(`acp-broker inbox --print: ${printed.stderr || url}`);
    inbox = await openInbox(url);

    const { connectDaemon, isFailure } = await import(pathToFileURL(join(ROOT, 'dist', 'daemon', 'client.js')).href);
    const { METHODS } = await import(pathToFileURL(join(ROOT, 'dist', 'daemon', 'protocol.js')).href);
    const connection = await connectDaemon(join(home, 'daemon', 'approvals.sock'), { role: 'control' });
    if (isFailure(connection)) throw new Error(`cannot reach the daemon's socket: ${connection.detail}`);
    control = connection;
    const status = () => control.link.request(METHODS.status, {});
    const brokersConnected = (n) => until(async () => (await status()).brokers >= n || undefined, 30_000, `${n} broker(s) connected to the daemon`);

    log(`approvals: latency, ${rounds} rounds (+${warmUp} warm-up)…`);
    const latencyBroker = await startBroker(procs, { home, policy, workspace, env: { MODE: 'latency' } });
    await brokersConnected(1);
    const latency = await latencyRounds(inbox, latencyBroker, rounds, warmUp);
    await finish(latencyBroker.broker);
    await until(async () => (await status()).brokers === 0 || undefined, 10_000, 'the latency broker to leave the daemon');

    log(`approvals: daemon memory, ${burstBrokers} brokers × ${perBroker} open approvals…`);
    const brokers = await Promise.all(Array.from({ length: burstBrokers }, () => startBroker(procs, { home, policy, workspace, env: { MODE: 'burst', COUNT: String(perBroker) } })));
    await brokersConnected(burstBrokers);
    const memory = await memoryRounds(inbox, brokers, status, perBroker, memoryRoundsCount);
    return { rounds, warmUp, ...latency, memory, brokers: burstBrokers, perBroker };
  } finally {
    inbox?.close();
    control?.link.destroy();
    await procs.stopAll();
  }
}

/** The table rows and notes for bench/run.mjs. */
export function approvalsRows(a, fmt) {
  const mib = (bytes) => `${fmt(bytes / MIB, 1)} MiB`;
  const latencyRow = (figure, values, baseline = '') => ({
    figure: `${figure} (${values.length} rounds)`, measured: `${fmt(median(values), 2)} ms median`, baseline,
    compare: `p90 ${fmt(percentile(values, 0.9), 2)} ms, max ${fmt(Math.max(...values), 2)} ms`, target: '≤ 10 ms median', pass: median(values) <= 10,
  });
  const { samples, total, baseline } = a.memory;
  const answered = samples.filter((s) => s.label.endsWith('answered'));
  const open = samples.filter((s) => s.label.endsWith('open'));
  const growth = Math.max(...answered.map((s) => s.heapUsed)) - baseline.heapUsed;
  const rows = [
    latencyRow('approvals: agent request → `opened` in the inbox event stream', a.toStream,
      `${fmt(median(a.toEditor), 2)} ms median to the editor's dialog (p90 ${fmt(percentile(a.toEditor, 0.9), 2)} ms)`),
    latencyRow('approvals: inbox answer (POST) → answer read by the agent', a.toAgent),
    {
      figure: `approvals: daemon heap with ${total.toLocaleString('en')} open approvals (2 KB diffs), and once answered`,
      measured: `${mib(Math.max(...open.map((s) => s.heapUsed)))} open (RSS ${mib(Math.max(...open.map((s) => s.rss)))})`,
      baseline: `${mib(baseline.heapUsed)} before (RSS ${mib(baseline.rss)})`,
      compare: `answered, ${answered.length} rounds: heap ${answered.map((s) => fmt(s.heapUsed / MIB, 1)).join(', ')} MiB (${growth >= 0 ? '+' : ''}${mib(growth)}); RSS ${answered.map((s) => fmt(s.rss / MIB, 0)).join(', ')} MiB`,
      target: 'flat: ≤ +8 MiB heap once answered', pass: growth <= 8 * MIB,
    },
  ];
  const notes = [
    `approvals, through \`acp-broker run\` (client never answers) and \`acp-broker daemon --no-desktop\`, after ${a.warmUp} warm-up rounds (the first of them, the broker's first decision and each side's first approval: ${fmt(a.first.toStream, 2)} ms to the inbox stream, ${fmt(a.first.toEditor, 2)} ms to the editor's dialog, ${fmt(a.first.toAgent, 2)} ms inbox answer → agent): request → inbox stream min ${fmt(Math.min(...a.toStream), 2)} ms, p10 ${fmt(percentile(a.toStream, 0.1), 2)}, p99 ${fmt(percentile(a.toStream, 0.99), 2)}; inbox answer → agent min ${fmt(Math.min(...a.toAgent), 2)} ms, p10 ${fmt(percentile(a.toAgent, 0.1), 2)}, p99 ${fmt(percentile(a.toAgent, 0.99), 2)}.`,
    `approvals memory (${a.brokers} brokers × ${a.perBroker} edit requests, answered through the inbox; heap after a collection / RSS): ${samples.map((s) => `${s.label}: ${mib(s.heapUsed)} / ${mib(s.rss)}`).join('; ')}.`,
  ];
  return { rows, notes };
}
