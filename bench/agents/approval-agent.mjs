#!/usr/bin/env node
// Bench agent for the approvals figures (bench/run.mjs --only approvals), behind `acp-broker run`
// with a client that never answers, so every answer it gets comes from the approvals daemon.
//
// Times are `process.hrtime.bigint()` readings, sent as decimal strings: on Linux that is
// CLOCK_MONOTONIC, one clock for every process on the machine, so the bench compares them with
// its own readings of the same clock (it checks this once before measuring).
//
// MODE=latency: on each `_bench/go {round}`, sends one permission request (`npm publish --tag rN`,
//   request id `rN`) and then reports `_bench/sent {round, at}` (`at` read just before the write);
//   when the answer arrives, `_bench/answered {round, at, result}` (`at` read when its bytes are
//   read, before any parsing).
// MODE=burst: on each `_bench/go {round}`, sends COUNT edit requests at once (2 KB diffs, distinct
//   tool calls) and reports `_bench/burst-answered {round, answers}` once every one is answered.
// Answers `initialize` and `session/new`; exits at stdin EOF.
const MODE = process.env.MODE ?? 'latency';
const COUNT = Number(process.env.COUNT ?? 100);
const OPTIONS = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }];

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const notify = (method, params) => send({ jsonrpc: '2.0', method, params });
/** Request id → what to do with its answer (given the time its bytes were read). */
const waiting = new Map();
const sessionId = 'bench';

function permission(id, toolCall, onAnswer) {
  waiting.set(id, onAnswer);
  send({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId, options: OPTIONS, toolCall } });
}

function latencyRound(round) {
  const id = `r${round}`;
  const command = `npm publish --tag ${id}`;
  const at = process.hrtime.bigint();
  permission(id, { toolCallId: `call-${id}`, title: command, kind: 'execute', rawInput: { command } }, (result, readAt) => {
    notify('_bench/answered', { round, at: String(readAt), result });
  });
  notify('_bench/sent', { round, at: String(at) });
}

function burstRound(round) {
  let left = COUNT;
  const answers = {};
  for (let i = 0; i < COUNT; i++) {
    const id = `b${round}-${i}`;
    const path = `${process.cwd()}/src/file-${round}-${i}.ts`;
    const toolCall = {
      toolCallId: `call-${id}`, title: `Edit src/file-${round}-${i}.ts`, kind: 'edit', locations: [{ path }],
      rawInput: { file_path: path, old_string: 'x'.repeat(2000), new_string: 'y'.repeat(2000) },
      content: [{ type: 'diff', path, oldText: 'x'.repeat(2000), newText: 'y'.repeat(2000) }],
    };
    permission(id, toolCall, (result) => {
      const key = result?.outcome?.optionId ?? result?.outcome?.outcome ?? 'error';
      answers[key] = (answers[key] ?? 0) + 1;
      if (--left === 0) notify('_bench/burst-answered', { round, answers });
    });
  }
}

function handle(message, readAt) {
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'approval-bench-agent', version: '1.0.0' } } });
  } else if (message.method === 'session/new') {
    send({ jsonrpc: '2.0', id: message.id, result: { sessionId } });
  } else if (message.method === '_bench/go') {
    (MODE === 'burst' ? burstRound : latencyRound)(message.params.round);
  } else if (message.method === undefined && waiting.has(message.id)) {
    const onAnswer = waiting.get(message.id);
    waiting.delete(message.id);
    onAnswer(message.result ?? { error: message.error }, readAt);
  }
}

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const readAt = process.hrtime.bigint();
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    let message;
    try { message = JSON.parse(line); } catch { continue; }
    if (message && typeof message === 'object') handle(message, readAt);
  }
});
process.stdin.on('end', () => process.exit(0));
