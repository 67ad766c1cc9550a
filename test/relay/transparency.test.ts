import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIXTURES, spawnBroker, tempDir } from '../helpers/cli.js';

const ALLOW_POLICY = join(FIXTURES, 'allow-all.yaml');

/** Traffic no broker may alter: unknown methods, odd key order, escapes, unicode line separators, junk. */
function adversarialLines(): string[] {
  return [
    '{"jsonrpc":"2.0","id":1,"method":"_zed.dev/custom","params":{"a":[1,2,{"b":null}]}}',
    '{"method":"$/progress","jsonrpc":"2.0","params":{"token":"t","value":{"kind":"report"}}}',
    '{"params":{"update":{"sessionUpdate":"future_variant","x":1},"sessionId":"s"},"method":"session/update","jsonrpc":"2.0"}',
    '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"line\u2028sep\u2029 and \\u2028 escaped, emoji 🦀, nul \\u0000"}},"_meta":{"traceparent":"00-x"}}}',
    '{ "jsonrpc" : "2.0" , "id" : "str-id" , "result" : { } }',
    'this is not json at all',
    '{"truncated": ',
    '[]',
    '{}',
    '   ',
    '{"jsonrpc":"2.0","id":7,"method":"session\\/prompt","params":{"sessionId":"s","prompt":[]},"unknownTopLevel":true}',
    '{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"nope","data":{"method":"x"}}}\r',
    JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x'.repeat(16 * 1024 * 1024) } } } }),
  ];
}

async function throughBroker(clientLines: string[], agentLines: string[]) {
  const dir = tempDir();
  const fromAgent = join(dir, 'agent-out.bin');
  const recorded = join(dir, 'agent-in.bin');
  const agentBytes = Buffer.from(agentLines.map((l) => `${l}\n`).join(''));
  writeFileSync(fromAgent, agentBytes);
  const run = spawnBroker(['run', '--policy', ALLOW_POLICY, '--audit', join(dir, 'audit.jsonl'), '--', process.execPath, join(FIXTURES, 'recording-agent.mjs')], {
    ACP_BROKER_HOME: dir, RECORD_TO: recorded, EMIT_FROM: fromAgent, EXIT_CODE: '0',
  });
  const clientBytes = Buffer.from(clientLines.map((l) => `${l}\n`).join(''));
  run.child.stdin.end(clientBytes);
  const { code } = await run.exit;
  return { code, clientBytes, agentBytes, agentReceived: readFileSync(recorded), clientReceived: run.stdout(), stderr: run.stderr() };
}

describe('relay transparency (the real CLI, spawned)', () => {
  it('passes adversarial traffic, including a 16 MB line, byte-identical in both directions', async () => {
    const lines = adversarialLines();
    const result = await throughBroker(lines, lines);
    expect(result.code).toBe(0);
    expect(result.agentReceived.equals(result.clientBytes)).toBe(true);
    expect(result.clientReceived.equals(result.agentBytes)).toBe(true);
  }, 60_000);

  it('passes random JSON-RPC traffic byte-identical', async () => {
    const message = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
      method: fc.oneof(fc.constantFrom('session/update', 'session/prompt', '_x/y', '$/cancel_request', 'fs/other'), fc.string()),
      params: fc.jsonValue(),
    }, { requiredKeys: ['jsonrpc'] });
    const sample = fc.sample(fc.oneof(message.map((m) => JSON.stringify(m)), fc.string().map((s) => s.replace(/\n/g, ' '))), { numRuns: 400, seed: 42 });
    const result = await throughBroker(sample, [...sample].reverse());
    expect(result.agentReceived.equals(result.clientBytes)).toBe(true);
    expect(result.clientReceived.equals(result.agentBytes)).toBe(true);
  }, 60_000);

  it('writes nothing but the agent\'s messages to stdout and exits with the agent\'s exit code', async () => {
    const dir = tempDir();
    const emit = join(dir, 'out');
    writeFileSync(emit, '{"jsonrpc":"2.0","method":"session/update","params":{}}\n');
    const run = spawnBroker(['--policy', ALLOW_POLICY, '--', process.execPath, join(FIXTURES, 'recording-agent.mjs')], {
      ACP_BROKER_HOME: dir, EMIT_FROM: emit, EXIT_CODE: '7', EXIT_AT_ONCE: '1',
    });
    const { code } = await run.exit;
    expect(code).toBe(7);
    expect(run.stdout().toString()).toBe('{"jsonrpc":"2.0","method":"session/update","params":{}}\n');
  });

  it('closes the agent\'s stdin on client EOF and terminates an agent that ignores it after the grace period', async () => {
    const dir = tempDir();
    const run = spawnBroker(['--policy', ALLOW_POLICY, '--grace-ms', '300', '--', process.execPath, join(FIXTURES, 'recording-agent.mjs')], {
      ACP_BROKER_HOME: dir, IGNORE_EOF: '1',
    });
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(128 + 15); // SIGTERM after the grace period
  });

  it('refuses an invalid policy before starting anything: exit 2 with file:line:column', async () => {
    const dir = tempDir();
    const policy = join(dir, 'bad.yaml');
    writeFileSync(policy, 'version: 1\nrules:\n  - id: x\n    decison: allow\n    match: { kind: execute }\n');
    const marker = join(dir, 'started');
    const run = spawnBroker(['--policy', policy, '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`], { ACP_BROKER_HOME: dir });
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(2);
    expect(run.stderr()).toContain(`${policy}:4:5: error: rule #1: unknown key \`decison\``);
    expect(run.stderr()).toContain('did you mean `decision`?');
    expect(run.stdout().length).toBe(0);
    expect(() => readFileSync(marker)).toThrow();
  });
});

describe('early start: the agent starts before the engine loads, only for policy content known to be valid', () => {
  const request = '{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t","kind":"execute","rawInput":{"command":"git push --force"}},"options":[{"optionId":"ok","name":"OK","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]}}\n';

  async function runOnce(home: string, policy: string, marker?: string) {
    const dir = tempDir();
    const emit = join(dir, 'emit');
    writeFileSync(emit, request);
    const recorded = join(dir, 'recorded');
    const run = spawnBroker(['--policy', policy, '--', process.execPath, '-e',
      `${marker ? `require('fs').writeFileSync(${JSON.stringify(marker)}, '');` : ''}process.stdout.write(require('fs').readFileSync(${JSON.stringify(emit)}));process.stdin.pipe(require('fs').createWriteStream(${JSON.stringify(recorded)}));`], { ACP_BROKER_HOME: home });
    // The client leaves once the request is settled — answered, or passed on to the client — (or
    // after 20 s, or when the broker exits).
    const started = Date.now();
    const answered = () => {
      if (run.stdout().includes('"id":"p1"')) return true;
      try { return readFileSync(recorded, 'utf8').includes('"id":"p1"'); } catch { return false; }
    };
    let exited = false;
    void run.exit.then(() => { exited = true; });
    while (!exited && !answered() && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 25));
    run.child.stdin.end();
    const { code } = await run.exit;
    let answer = '';
    try { answer = readFileSync(recorded, 'utf8'); } catch { /* never started */ }
    return { code, answer, stderr: run.stderr() };
  }

  it('decides the same on the first (validated) and the second (early) start', async () => {
    const home = tempDir();
    const policy = join(tempDir(), 'p.yaml');
    writeFileSync(policy, 'version: 1\nrules:\n  - id: no-force\n    decision: deny\n    match: { command: ["git push --force"] }\n');
    for (const attempt of ['first', 'second']) {
      const { answer } = await runOnce(home, policy);
      expect(answer, attempt).toBe('{"jsonrpc":"2.0","id":"p1","result":{"outcome":{"outcome":"selected","optionId":"no"}}}\n');
    }
    const record = JSON.parse(readFileSync(join(home, 'checked-policies.json'), 'utf8')) as { policies: { file: string; text: string }[] };
    expect(record.policies).toContainEqual(expect.objectContaining({ file: policy, text: readFileSync(policy, 'utf8'), extended: [] }));
  });

  it("the client's first lines reach an early agent at once, and the broker still learns the session's workspace from them", async () => {
    const home = tempDir();
    const workspace = tempDir();
    const policy = join(tempDir(), 'p.yaml');
    writeFileSync(policy, 'version: 1\ndefault: deny\nrules:\n  - id: ws\n    decision: allow\n    match: { kind: edit, paths: ["${workspace}/**"] }\n');
    // The agent answers session/new with its own id, then asks to edit a file in the session's cwd.
    const agent = `let buf = ''; process.stdin.on('data', (c) => { buf += c; let i; while ((i = buf.indexOf('\\n')) >= 0) {
      const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
      const out = (x) => process.stdout.write(JSON.stringify(x) + '\\n');
      if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1 } });
      if (m.method === 'session/new') { out({ jsonrpc: '2.0', id: m.id, result: { sessionId: 'agent-s1' } });
        out({ jsonrpc: '2.0', id: 'p1', method: 'session/request_permission', params: { sessionId: 'agent-s1',
          toolCall: { toolCallId: 't1', kind: 'edit', locations: [{ path: m.params.cwd + '/notes.txt' }] },
          options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }, { optionId: 'no', name: 'No', kind: 'reject_once' }] } }); }
      if (m.id === 'p1') { process.stderr.write('ANSWER ' + JSON.stringify(m.result) + '\\n'); process.exit(0); }
    } });`;
    for (const attempt of ['first (validated)', 'second (early start)']) {
      const run = spawnBroker(['--policy', policy, '--non-interactive', '--', process.execPath, '-e', agent], { ACP_BROKER_HOME: home });
      // Written at once: on the early start these lines reach the agent before the relay has loaded.
      run.child.stdin.write('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n');
      run.child.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":${JSON.stringify(workspace)},"mcpServers":[]}}\n`);
      const { code } = await run.exit;
      expect(code, attempt).toBe(0);
      expect(run.stderr(), attempt).toContain('ANSWER {"outcome":{"outcome":"selected","optionId":"ok"}}');
    }
  });

  it('a policy edited to be invalid after a good start never starts the agent', async () => {
    const home = tempDir();
    const policy = join(tempDir(), 'p.yaml');
    writeFileSync(policy, 'version: 1\nrules: []\n');
    await runOnce(home, policy);
    writeFileSync(policy, 'version: 1\nrules:\n  - id: x\n    decison: deny\n');
    const marker = join(tempDir(), 'started');
    const { code, stderr } = await runOnce(home, policy, marker);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown key `decison`');
    expect(() => readFileSync(marker)).toThrow();
  });
});
