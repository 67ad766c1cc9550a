#!/usr/bin/env node
// Bench agent for the start-up, decisions and memory figures (MODE env):
//
// Answers `initialize` and `session/new` (session `bench`; in modes other than init it announces
// `_bench/ready` just before the session/new answer). A `warm` line: one permission request
// (`warm-up`), then `_bench/warmed` once it is answered (the bench's warm case sends it before `go`).
//
// MODE=init: answers `initialize` at once (start-up: spawn → initialize answered).
// MODE=decisions: on a `go` line, sends N permission requests (`echo i && git status`), one round
//   trip each. Reports `_bench/result {ms}`: `go` read → last answer read; with MARKS=k also
//   `marks`, the ms at every k-th answer (how the cost per call changes over the run).
// MODE=memory: on `go`, a warm-up request, then N tool calls, each `tool_call` → permission request
//   → (answer) → `tool_call_update` completed, distinct toolCallIds. Every CHECK calls it reports
//   `_bench/progress {n}` and waits for `_bench/continue` (so memory is sampled at a fixed point).
// Exits at stdin EOF.
const MODE = process.env.MODE ?? 'init';
const N = Number(process.env.N ?? 5000);
const CHECK = Number(process.env.CHECK ?? 10_000);
const MARKS = Number(process.env.MARKS ?? 0);
const OPTIONS = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }];

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const waiting = new Map();
let onContinue;
let goReceived = false;
let warmReceived = false;

function request(id, command, toolCallId) {
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ jsonrpc: '2.0', id, method: 'session/request_permission', params: {
      sessionId: 'bench', options: OPTIONS,
      toolCall: { toolCallId, title: command, kind: 'execute', rawInput: { command } },
    } });
  });
}

async function warm() {
  await request('warm-up', 'echo warm && git status', 'warm');
  send({ jsonrpc: '2.0', method: '_bench/warmed', params: {} });
}

async function decisions(start) {
  const marks = [];
  for (let i = 0; i < N; i++) {
    await request(i, `echo ${i} && git status`, `call-${i}`);
    if (MARKS && (i + 1) % MARKS === 0) marks.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  send({ jsonrpc: '2.0', method: '_bench/result', params: { ms, n: N, ...(MARKS ? { marks } : {}) } });
}

async function memory() {
  await request('warm-up', 'echo warm && git status', 'warm');
  for (let i = 1; i <= N; i++) {
    const toolCallId = `call-${i}`;
    const command = `echo ${i} && git status`;
    send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'bench', update: {
      sessionUpdate: 'tool_call', toolCallId, title: command, kind: 'execute', status: 'pending', rawInput: { command } } } });
    await request(i, command, toolCallId);
    send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'bench', update: {
      sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `${i}` } }] } } });
    if (i % CHECK === 0) {
      await new Promise((resolve) => { onContinue = resolve; send({ jsonrpc: '2.0', method: '_bench/progress', params: { n: i } }); });
    }
  }
  send({ jsonrpc: '2.0', method: '_bench/result', params: { n: N } });
}

function handle(message) {
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'bench-agent', version: '1.0.0' } } });
  } else if (message.method === 'session/new') {
    if (MODE !== 'init') send({ jsonrpc: '2.0', method: '_bench/ready', params: {} });
    send({ jsonrpc: '2.0', id: message.id, result: { sessionId: 'bench' } });
  } else if (message.method === '_bench/continue') {
    onContinue?.();
  } else if (message.method === undefined && waiting.has(message.id)) {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve(message.result);
  }
}

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    if (line === 'go') {
      if (goReceived) continue;
      goReceived = true;
      void (MODE === 'decisions' ? decisions(process.hrtime.bigint()) : MODE === 'memory' ? memory() : undefined);
      continue;
    }
    if (line === 'warm') {
      if (!warmReceived) void warm();
      warmReceived = true;
      continue;
    }
    let message;
    try { message = JSON.parse(line); } catch { continue; }
    if (message && typeof message === 'object') handle(message);
  }
});
process.stdin.on('end', () => process.exit(0));
