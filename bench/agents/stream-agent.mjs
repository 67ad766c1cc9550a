#!/usr/bin/env node
// Bench agent for the stream figure. Answers `initialize` and `session/new` (session `bench`),
// announcing `_bench/ready {bytes}` (the size of what it will stream) just before the session/new
// answer. A `warm` line: one permission request (`warm-up`: a broker answers it once it has loaded;
// without a broker the client does), then `_bench/warmed` once it is answered. On a `go` line it
// writes 200,000 small session/update notifications with forty 1 MiB lines spread among them, then
// `_bench/done`; it writes nothing between its last answer and `go`. Exits at stdin EOF.
//
// WRITES=per-message (default): one stdout write per message, as the ACP SDK's ndJsonStream does.
// WRITES=batched: messages gathered into 64 KiB writes (a buffered writer; the harder case for a relay).
const SMALL = Number(process.env.SMALL ?? 200_000);
const BIG = Number(process.env.BIG ?? 40);
const BIG_BYTES = 1024 * 1024;
const batched = process.env.WRITES === 'batched';

const small = (i) => `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"bench","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"token ${i} of the answer"}}}}\n`;
const bigHead = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"bench","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"';
const bigTail = '"}}}}\n';
const big = bigHead + 'x'.repeat(BIG_BYTES - bigHead.length - bigTail.length) + bigTail;
const done = '{"jsonrpc":"2.0","method":"_bench/done","params":{}}\n';
const every = Math.max(1, Math.floor(SMALL / Math.max(1, BIG)));

let total = Buffer.byteLength(done);
for (let i = 0; i < SMALL; i++) total += Buffer.byteLength(small(i));
total += BIG * BIG_BYTES;

function write(text) {
  return new Promise((resolve) => { if (process.stdout.write(text)) resolve(); else process.stdout.once('drain', resolve); });
}

async function stream() {
  let buffer = '';
  const out = async (text) => {
    if (!batched) return write(text);
    buffer += text;
    if (buffer.length >= 64 * 1024) { const b = buffer; buffer = ''; await write(b); }
  };
  let bigs = 0;
  for (let i = 0; i < SMALL; i++) {
    await out(small(i));
    if ((i + 1) % every === 0 && bigs < BIG) { bigs++; await out(big); }
  }
  while (bigs < BIG) { bigs++; await out(big); }
  await out(done);
  if (buffer) await write(buffer);
}

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
let started = false;
let warming = false;

function handle(message) {
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'stream-bench-agent', version: '1.0.0' } } });
  } else if (message.method === 'session/new') {
    send({ jsonrpc: '2.0', method: '_bench/ready', params: { bytes: total } });
    send({ jsonrpc: '2.0', id: message.id, result: { sessionId: 'bench' } });
  } else if (message.method === undefined && message.id === 'warm-up') {
    send({ jsonrpc: '2.0', method: '_bench/warmed', params: {} });
  }
}

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    if (line === 'go') {
      if (!started) void stream();
      started = true;
    } else if (line === 'warm') {
      if (!warming) send({ jsonrpc: '2.0', id: 'warm-up', method: 'session/request_permission', params: { sessionId: 'bench', options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }], toolCall: { toolCallId: 'warm', title: 'echo warm', kind: 'execute', rawInput: { command: 'echo warm' } } } });
      warming = true;
    } else {
      let message;
      try { message = JSON.parse(line); } catch { continue; }
      if (message && typeof message === 'object') handle(message);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
