import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optimizerGateWith } from '../../src/startup/optimizer-gate.js';
import { CLI, FIXTURES, ROOT, tempDir } from '../helpers/cli.js';

/** The gate over fake effects: what it switches, and when it asks to be checked again. */
function fakeGate(holdMs = 50) {
  let now = 0;
  const switched: boolean[] = [];
  const timers: { at: number; check: () => void }[] = [];
  const gate = optimizerGateWith({ setCompiler: (on) => switched.push(on), now: () => now, after: (ms, check) => timers.push({ at: now + ms, check }) }, holdMs);
  /** Move the clock, running the checks that fall due, in order. */
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const due = timers[0];
      if (!due || due.at > until) break;
      timers.shift();
      now = due.at;
      due.check();
    }
    now = until;
  };
  return { gate, switched, timers, advance };
}

describe('the optimiser gate', () => {
  it('starts closed, opens on a decision, and closes once decisions have stopped for the hold time', () => {
    const { gate, switched, advance } = fakeGate(50);
    expect(switched).toEqual([false]);
    gate.decisionMade();
    expect(switched).toEqual([false, true]);
    advance(49);
    expect(switched).toEqual([false, true]);
    advance(1);
    expect(switched).toEqual([false, true, false]);
  });

  it('stays open, switching nothing, while decisions keep coming within the hold time', () => {
    const { gate, switched, timers, advance } = fakeGate(50);
    gate.decisionMade();
    for (let i = 0; i < 100; i++) {
      advance(30);
      gate.decisionMade();
    }
    expect(switched).toEqual([false, true]);
    expect(timers.length).toBe(1);
    advance(49);
    expect(switched).toEqual([false, true]);
    advance(1);
    expect(switched).toEqual([false, true, false]);
    gate.decisionMade();
    expect(switched).toEqual([false, true, false, true]);
  });
});

// V8's own code log (`--log-code`) names every function it compiled and with which tier; `*` marks
// TurboFan. A file, not stdout: V8's traces on stdout would land in the ACP stream.
const onMeasuredV8 = process.versions.v8.startsWith('11.');

function turbofanned(log: string): string[] {
  return log.split('\n').filter((l) => l.startsWith('code-creation,JS,') && l.endsWith(',*')).map((l) => l.split(',')[6]!.split(' ')[0]!);
}

/** `run` under V8's code log, relaying `agent` (an agent command) for a client that writes `clientLines` and waits until `done` holds of what it read last. */
async function runLogged(agent: string[], clientLines: string[], done: (out: string) => boolean, env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir();
  const log = join(dir, 'v8.log');
  const child = spawn(process.execPath, ['--log-code', `--logfile=${log}`, '--no-logfile-per-isolate', CLI, 'run', '--non-interactive', '--policy', join(ROOT, 'policies', 'default.yaml'), '--', ...agent], {
    cwd: dir, env: { ...process.env, ACP_BROKER_HOME: dir, ...env }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  // The end of what the client read so far (a burst is tens of megabytes).
  let out = '';
  const finished = new Promise<void>((resolve) => child.stdout.on('data', (c: Buffer) => { out = (out + c.toString()).slice(-65_536); if (done(out)) resolve(); }));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.write(clientLines.map((l) => `${l}\n`).join(''));
  await finished;
  child.stdin.end();
  return { code: await exited, compiled: turbofanned(readFileSync(log, 'utf8')), out };
}

/** The recording agent, emitting a burst of `lines` chunks of agent text, and a client that waits for the last. */
async function burst(lines: number, env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir();
  const chunk = (i: number) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `chunk ${i} of the answer` } } } });
  writeFileSync(join(dir, 'out.bin'), Array.from({ length: lines }, (_, i) => `${chunk(i)}\n`).join(''));
  const last = `chunk ${lines - 1} of`;
  return runLogged([process.execPath, join(FIXTURES, 'recording-agent.mjs')], [], (out) => out.includes(last), { EMIT_FROM: join(dir, 'out.bin'), ...env });
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
const sessionNew = (cwd: string) => JSON.stringify({ jsonrpc: '2.0', id: 'n', method: 'session/new', params: { cwd, mcpServers: [] } });
const fromRelay = (name: string) => name.includes('/dist/') || /^(lineNeedsLook|completeLine|inBatches|readableAddChunkPushByteMode|writeOrBuffer|bidirectionalIndexOf)$/.test(name);

describe.runIf(onMeasuredV8)('the optimiser gate in `run` (V8 code log)', () => {
  it('keeps the optimising compiler off the relay path through a burst of agent output without decisions', async () => {
    // No rehearsal: its decisions would open the gate before the burst.
    const gated = await burst(150_000, { ACP_BROKER_TRICKS_OFF: 'rehearsal' });
    expect(gated.code).toBe(0);
    expect(gated.compiled.filter(fromRelay)).toEqual([]);
    // Left out, the same burst has the relay's code compiled: the assertion above can fail.
    const ungated = await burst(150_000, { ACP_BROKER_TRICKS_OFF: 'rehearsal,optimizer-gate' });
    expect(ungated.compiled.filter(fromRelay).length).toBeGreaterThan(3);
  }, 120_000);

  it('opens for decisions: 3,000 permission requests are decided, and the decision path is compiled', async () => {
    // The bench's agent: 3,000 permission requests one after the other (`echo i && git status`).
    const agent = [process.execPath, join(ROOT, 'bench', 'agents', 'rpc-agent.mjs')];
    const { code, compiled, out } = await runLogged(agent, [initialize, sessionNew(tempDir()), 'go'], (o) => o.includes('_bench/result'), { ACP_BROKER_TRICKS_OFF: 'rehearsal', MODE: 'decisions', N: '3000' });
    expect(code).toBe(0);
    expect(out).toContain('"n":3000');
    expect(compiled).toEqual(expect.arrayContaining(['evaluate', 'decide']));
  }, 120_000);
});
