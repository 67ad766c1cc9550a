import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryGrantStore } from '../../src/grants/store.js';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { harness, policyFrom } from '../helpers/harness.js';
import { startBroker } from './driver.js';
import {
  agentLine, ALLOW_KINDS, policySpec, policyYaml, SESSIONS, steps, stepsOf, WORKSPACES,
  type ClientEvent, type Intercepted, type PolicySpec, type Step,
} from './fuzz-model.js';

// Fuzzing the broker with random policies, tool calls, shell lines and interleavings of client and
// agent traffic (fast-check). Invariants, whatever the input:
//  1. nothing throws;
//  2. every intercepted request (permission request, enforced fs/terminal call) is settled exactly
//     once: answered by the broker or handed to the client — never both, never neither — and the
//     agent never gets two answers for one request;
//  3. when a deny rule matches any item (oracle in fuzz-model.ts), no allow comes back and the
//     request is not handed to a human;
//  4. every other line passes through byte for byte, in order, both ways.

const BROKER_ANSWER = '{"jsonrpc":"2.0","id":';
const BROKER_CANCEL = '{"jsonrpc":"2.0","method":"$/cancel_request"';
const RUNS = Number(process.env.FAULT_FUZZ_RUNS ?? 300);
/** FAULT_FUZZ_TRACE=FILE appends every line before it is fed to the broker (to find a hang). */
const trace = (text: string) => { if (process.env.FAULT_FUZZ_TRACE) appendFileSync(process.env.FAULT_FUZZ_TRACE, text); };

function keyOf(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}

function parse(line: string): Record<string, any> | undefined {
  try {
    const m = JSON.parse(line) as unknown;
    return m !== null && typeof m === 'object' && !Array.isArray(m) ? m as Record<string, any> : undefined;
  } catch {
    return undefined;
  }
}

function clientLine(event: ClientEvent, seq: number, outstanding: Intercepted[], answered: Set<string>): { line: string; answers?: string } | undefined {
  const line = (m: object) => `${JSON.stringify(m)}\n`;
  switch (event.type) {
    case 'new-session':
      return { line: line({ jsonrpc: '2.0', id: `new-${event.n}`, method: 'session/new', params: { cwd: WORKSPACES[event.workspace], mcpServers: [] } }) };
    case 'cancel':
      return { line: line({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: SESSIONS[event.session] } }) };
    case 'answer': {
      const open = outstanding.filter((r) => !answered.has(keyOf(r.id)));
      if (open.length === 0) return undefined;
      const request = open[event.pick % open.length]!;
      answered.add(keyOf(request.id));
      const options = request.options;
      const outcome = options.length === 0 || event.option >= options.length + 2 ? { outcome: 'cancelled' }
        : { outcome: 'selected', optionId: options[event.option % options.length]!.optionId };
      // Key order differs from the broker's own answers, so the two can be told apart.
      return { line: line({ id: request.id, jsonrpc: '2.0', result: { outcome } }), answers: keyOf(request.id) };
    }
    case 'unknown-answer':
      return { line: line({ id: `c-${event.id}`, jsonrpc: '2.0', result: { outcome: { outcome: 'selected', optionId: 'a1' } } }) };
    case 'prompt':
      return { line: line({ id: `p-${seq}`, jsonrpc: '2.0', method: 'session/prompt', params: { sessionId: SESSIONS[event.session], prompt: [{ type: 'text', text: event.text }] } }) };
    case 'junk':
      return { line: `${event.text}\n` };
  }
}

interface Outcome {
  /** Keys of the requests the client answered. */
  answeredByClient: Set<string>;
  toAgent: string[];
  toClient: string[];
  agentLines: string[];
  clientLines: string[];
  intercepted: Map<string, Intercepted>;
}

async function play(policy: PolicySpec, script: Step[], options: { nonInteractive: boolean; grants: boolean }): Promise<Outcome> {
  trace(`P ${JSON.stringify(policy)}\n`);
  const set = await policyFrom(...policy.layers.map((l) => ({ text: policyYaml(l), layer: l.layer })));
  const h = await harness(set, { nonInteractive: options.nonInteractive, ...(options.grants ? { grants: createMemoryGrantStore() } : {}) });
  const intercepted = new Map<string, Intercepted>();
  const agentLines: string[] = [];
  const clientLines: string[] = [];
  const answeredByClient = new Set<string>();
  script.forEach((step, seq) => {
    if (step.from === 'agent') {
      const line = agentLine(step.event, policy, seq, intercepted);
      agentLines.push(line);
      trace(`A ${line}`);
      expect(() => h.agent(line)).not.toThrow();
    } else {
      // Requests the client has been shown and not yet answered.
      const shown = h.toClient.map(parse).filter((m) => m?.method === 'session/request_permission' && 'id' in m)
        .map((m) => intercepted.get(keyOf(m!.id))).filter((r): r is Intercepted => r !== undefined)
        .map((r) => ({ ...r, options: (h.toClient.map(parse).find((m) => m?.method === 'session/request_permission' && keyOf(m.id) === keyOf(r.id))?.params?.options ?? []) as Intercepted['options'] }));
      const sent = clientLine(step.event, seq, shown, answeredByClient);
      if (!sent) return;
      clientLines.push(sent.line);
      trace(`C ${sent.line}`);
      expect(() => h.client(sent.line)).not.toThrow();
    }
  });
  return { answeredByClient, toAgent: h.toAgent, toClient: h.toClient, agentLines, clientLines, intercepted };
}

function check(outcome: Outcome, options: { nonInteractive: boolean; grants: boolean }): void {
  const { toAgent, toClient, agentLines, clientLines, intercepted } = outcome;
  const clientSet = new Set(clientLines);
  // Split what reached the agent into the broker's own answers and relayed client lines.
  const brokerAnswers = toAgent.filter((l) => l.startsWith(BROKER_ANSWER) && !clientSet.has(l)).map((l) => parse(l)!);
  const relayedClient = toAgent.filter((l) => !(l.startsWith(BROKER_ANSWER) && !clientSet.has(l)));
  const forwarded = toClient.map(parse).filter((m) => m && 'id' in m && typeof m.method === 'string' && intercepted.has(keyOf(m.id)));

  for (const [key, request] of intercepted) {
    const answers = brokerAnswers.filter((a) => keyOf(a.id) === key);
    const handed = forwarded.filter((m) => keyOf(m!.id) === key);
    const clientAnswers = relayedClient.map(parse).filter((m) => m && !('method' in m) && keyOf(m.id) === key);
    const what = `${request.method} ${String(request.id)}`;
    // 2. settled exactly once; the agent hears at most one answer.
    expect(handed.length, `${what} handed to the client at most once`).toBeLessThanOrEqual(1);
    expect(answers.length, `${what} answered by the broker at most once`).toBeLessThanOrEqual(1);
    expect(answers.length + clientAnswers.length, `${what}: one answer at most reaches the agent`).toBeLessThanOrEqual(1);
    // Handed to the client, answered by the broker, or both: the broker answers a request it handed
    // on only for the client (converting its choice) or when a new grant covers it.
    expect(answers.length + handed.length, `${what} settled`).toBeGreaterThanOrEqual(1);
    if (handed.length === 1 && answers.length === 1 && !options.grants) {
      expect(outcome.answeredByClient.has(key), `${what}: answered by the broker after the client was asked, without a client answer`).toBe(true);
    }
    if (options.nonInteractive && request.method === 'session/request_permission') {
      expect(handed.length, `${what}: nobody to ask in non-interactive mode`).toBe(0);
    }
    // 3. a matching deny rule: never an allow, never handed to a human.
    if (request.denied) {
      expect(handed.length, `${what} matches a deny rule: not escalated`).toBe(0);
      const answer = answers[0];
      expect(answer, `${what} matches a deny rule: answered by the broker`).toBeDefined();
      if (request.method === 'session/request_permission') {
        const outcome = answer!.result?.outcome as { outcome: string; optionId?: string } | undefined;
        const chosen = request.options.find((o) => o.optionId === outcome?.optionId);
        expect(outcome?.outcome === 'cancelled' || (chosen !== undefined && !ALLOW_KINDS.has(chosen.kind)), `${what}: ${JSON.stringify(outcome)}`).toBe(true);
      } else {
        expect(answer!.error, `${what} refused`).toBeDefined();
      }
    }
  }

  // 4. pass-through, byte for byte and in order.
  const plainAgent = agentLines.filter((l) => {
    const m = parse(l);
    return !(m && 'id' in m && typeof m.method === 'string' && intercepted.has(keyOf(m.id)));
  });
  const clientGot = toClient.filter((l) => {
    const m = parse(l);
    if (l.startsWith(BROKER_CANCEL) && options.grants) return false;
    return !(m && 'id' in m && typeof m.method === 'string' && intercepted.has(keyOf(m.id)));
  });
  expect(clientGot).toEqual(plainAgent);
  // The client's answers to escalated requests may be consumed (the broker answers the agent in
  // their place); every other client line is relayed.
  const isAnswer = (l: string) => { const m = parse(l); return m !== undefined && !('method' in m) && intercepted.has(keyOf(m.id)); };
  expect(relayedClient.filter((l) => !isAnswer(l))).toEqual(clientLines.filter((l) => !isAnswer(l)));
  for (const l of relayedClient.filter(isAnswer)) expect(clientLines).toContain(l);
  // Forwarded requests are the agent's lines unchanged, unless the broker adds its grant options.
  if (!options.grants) {
    const handedLines = toClient.filter((l) => { const m = parse(l); return m && 'id' in m && typeof m.method === 'string' && intercepted.has(keyOf(m.id)); });
    for (const l of handedLines) expect(agentLines).toContain(l);
  }
}

describe('fuzzing the broker in-process (fast-check)', () => {
  for (const mode of [
    { nonInteractive: false, grants: false },
    { nonInteractive: true, grants: false },
    { nonInteractive: false, grants: true },
  ]) {
    it(`holds every invariant: non-interactive=${mode.nonInteractive}, grants=${mode.grants}`, async () => {
      await fc.assert(fc.asyncProperty(policySpec, steps, async (policy, script) => {
        const outcome = await play(policy, script, mode);
        trace('CHECK\n');
        try {
          check(outcome, mode);
        } catch (error) {
          trace(`FAILED ${(error as Error).message.split('\n')[0]}\n`);
          throw error;
        }
        trace('CHECKED\n');
      }), { numRuns: RUNS, seed: Number(process.env.FAULT_FUZZ_SEED ?? 20261130) + (mode.nonInteractive ? 1 : 0) + (mode.grants ? 2 : 0) });
    }, 120_000);
  }
});

describe('fuzzing the real CLI (one smaller spawned run)', () => {
  it('holds the same invariants through the spawned broker (non-interactive)', async () => {
    const [[policy, script]] = fc.sample(fc.tuple(policySpec, stepsOf(30, 40)), { numRuns: 1, seed: 4242 });
    const dir = tempDir('acp-broker-fault-');
    const policies = policy!.layers.map((layer, i) => {
      const file = join(dir, `policy-${i}.yaml`);
      writeFileSync(file, policyYaml(layer));
      return [layer.layer === 'managed' ? '--managed-policy' : '--policy', file];
    }).flat();
    if (!policies.includes('--policy')) policies.push('--policy', join(FIXTURES, 'allow-all.yaml'));
    // The agent side only (a client answering needs a live loop); the client sends its lines up front.
    const intercepted = new Map<string, Intercepted>();
    const agentLines = script!.filter((s) => s.from === 'agent').map((s, seq) => agentLine(s.event as never, policy!, seq, intercepted));
    const marker = '{"jsonrpc":"2.0","method":"_fuzz/done","params":{}}\n';
    writeFileSync(join(dir, 'agent-out.bin'), agentLines.join('') + marker);
    const record = join(dir, 'agent-in.bin');
    const run = startBroker({
      dir, policyArgs: policies, args: ['--non-interactive'],
      agent: [process.execPath, join(FIXTURES, 'recording-agent.mjs')],
      env: { EMIT_FROM: join(dir, 'agent-out.bin'), RECORD_TO: record },
    });
    const clientLines = [
      '{"jsonrpc":"2.0","id":"new-1","method":"session/new","params":{"cwd":"/home/dev/project","mcpServers":[]}}\n',
      'not json from the client\n', '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s2"}}\n',
    ];
    for (const l of clientLines) run.send(l.slice(0, -1));
    await run.waitFor((l) => l.message?.method === '_fuzz/done', 'the end of the agent\'s traffic');
    // The client stays until the broker has settled every intercepted request (answered it or passed
    // it on to the client), at most 20 s: decisions may wait for the engine to load.
    const answeredIds = () => { try { return readFileSync(record, 'utf8'); } catch { return ''; } };
    const settled = ({ id }: Intercepted) => answeredIds().includes(`"id":${JSON.stringify(id)},`)
      || run.lines.some((l) => l.message?.id === id && l.message?.method !== undefined);
    const waitedSince = Date.now();
    while ([...intercepted.values()].some((i) => !settled(i)) && Date.now() - waitedSince < 20_000) await new Promise((r) => setTimeout(r, 25));
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    const toAgent = readFileSync(record, 'utf8').split('\n').filter((l) => l !== '').map((l) => `${l}\n`);
    const toClient = run.lines.map((l) => `${l.text}\n`).filter((l) => l !== marker);
    check({ answeredByClient: new Set(), toAgent, toClient, agentLines, clientLines, intercepted }, { nonInteractive: true, grants: false });
    expect(intercepted.size).toBeGreaterThan(3);
  }, 60_000);
});
