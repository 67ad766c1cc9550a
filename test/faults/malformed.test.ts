import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { command, OPTIONS, permissionRequest, recordedResponses, startBroker, type BrokerRun } from './driver.js';

// Malformed traffic from either side, through the real CLI: it passes through byte for byte or is
// answered safely, never crashes the broker, never yields an allow, and later valid traffic is still
// decided. The policy (driver POLICY): `npm test` allowed, `git push` and `**/.env` denied, else ask.

const ALLOW_OPTION_IDS = new Set(['yes', 'always']);
const opts = JSON.stringify(OPTIONS);
const push = '{"toolCallId":"t-push","kind":"execute","rawInput":{"command":"git push --force origin main"}}';
const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/**
 * Lines no broker may answer with an allow. `decided`: the broker must answer them itself, with a reject.
 * `invalid`: not valid JSON-RPC yet naming an intercepted method (a lenient client might read a request
 * in it), so never relayed: answered with -32600 when its id can be read, else dropped (`dropped`).
 */
const AGENT_GARBAGE: { line: string; id?: unknown; decided?: boolean; refused?: boolean; invalid?: boolean; dropped?: boolean }[] = [
  { line: 'this is not json at all' },
  { line: '{"truncated": ' },
  { line: `{"jsonrpc":"2.0","id":101,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push.slice(0, 40)}`, id: 101, invalid: true },
  { line: '[]' },
  { line: '{}' },
  { line: 'null' },
  { line: '"session/request_permission"' },
  { line: `[{"jsonrpc":"2.0","id":102,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push}}}]`, id: 102, invalid: true },
  { line: '{"jsonrpc":"2.0","id":999,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}' },
  { line: '{"jsonrpc":"2.0","id":103,"method":"session/request_permission"}', id: 103 },
  { line: '{"jsonrpc":"2.0","id":104,"method":"session/request_permission","params":null}', id: 104 },
  { line: '{"jsonrpc":"2.0","id":105,"method":"session/request_permission","params":"git push"}', id: 105 },
  { line: '{"jsonrpc":"2.0","id":106,"method":"session/request_permission","params":[]}', id: 106 },
  { line: `{"jsonrpc":"2.0","id":107,"method":"session/request_permission","params":{"sessionId":5,"options":${opts},"toolCall":${push}}}`, id: 107 },
  { line: `{"jsonrpc":"2.0","id":108,"method":"session/request_permission","params":{"sessionId":"s","options":"all","toolCall":${push}}}`, id: 108 },
  { line: `{"jsonrpc":"2.0","id":109,"method":"session/request_permission","params":{"sessionId":"s","options":[],"toolCall":${push}}}`, id: 109 },
  { line: `{"jsonrpc":"2.0","id":110,"method":"session/request_permission","params":{"sessionId":"s","options":[{},{"optionId":1,"kind":"allow_once"},null],"toolCall":${push}}}`, id: 110 },
  { line: `{"jsonrpc":"2.0","id":111,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":"git push"}}`, id: 111 },
  { line: `{"jsonrpc":"2.0","id":112,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":[]}}`, id: 112 },
  { line: `{"jsonrpc":"2.0","id":113,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"toolCallId":{},"kind":42,"title":7,"rawInput":{"command":{"x":1}},"locations":7,"content":5}}}`, id: 113 },
  { line: `{"jsonrpc":"2.0","id":114,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"toolCallId":"t114","kind":"execute","rawInput":{"command":["git","push"]}}}}`, id: 114 },
  { line: `{"jsonrpc":"2.0","id":115,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"toolCallId":"t115","kind":"read","locations":[{"path":5},{"path":"/home/dev/project/.env"},null]}}}`, id: 115, decided: true },
  { line: `{"jsonrpc":"2.0","id":116,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"kind":"execute","rawInput":{"command":"git push --force origin main"}}}}`, id: 116, decided: true },
  { line: `{"jsonrpc":"2.0","id":null,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push}}}`, id: null, decided: true },
  { line: `{"jsonrpc":"2.0","id":{},"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push}}}`, dropped: true },
  { line: `{"jsonrpc":"2.0","id":true,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push}}}`, dropped: true },
  // Escapes and duplicate keys: what the client would read is what the broker must read.
  { line: `{"jsonrpc":"2.0","id":117,"method":"session\\/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push}}}`, id: 117, decided: true },
  { line: `{"jsonrpc":"2.0","id":118,"method":"\\u0073ession/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push}}}`, id: 118, decided: true },
  { line: `{"jsonrpc":"2.0","id":119,"method":"session/update","method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":${push}}}`, id: 119, decided: true },
  { line: `{"jsonrpc":"2.0","id":120,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"toolCallId":"t120","kind":"execute","rawInput":{"command":"git push\\u0000; rm -rf /"}}}}`, id: 120 },
  { line: `{"jsonrpc":"2.0","id":121,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"toolCallId":"t121","kind":"execute","rawInput":{"command":"\\ud800 git push"}}}}\r`, id: 121 },
  // Absurd nesting in an escalated request (the broker re-encodes it with its own options).
  { line: `{"jsonrpc":"2.0","id":122,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"toolCallId":"t122","kind":"execute","rawInput":{"command":"make deploy"},"_meta":${deep(50_000)}}}}`, id: 122 },
  { line: `{"jsonrpc":"2.0","id":123,"method":"session/request_permission","params":{"sessionId":"s","options":${opts},"toolCall":{"toolCallId":"t123","kind":"execute","rawInput":{"command":"${'$('.repeat(3000)}git push${')'.repeat(3000)}"}}}}`, id: 123 },
  // Enforced client methods with garbage params.
  { line: '{"jsonrpc":"2.0","id":130,"method":"fs/write_text_file","params":"x"}', id: 130 },
  { line: '{"jsonrpc":"2.0","id":131,"method":"fs/read_text_file","params":{"path":{"p":1},"sessionId":[]}}', id: 131 },
  { line: '{"jsonrpc":"2.0","id":132,"method":"terminal/create","params":{"sessionId":"s","command":"git","args":["push","--force"]}}', id: 132, refused: true },
  { line: '{"jsonrpc":"2.0","id":133,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/home/dev/project/.env"}}', id: 133, refused: true },
  // Session updates the broker tracks, with garbage inside.
  { line: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"u1","content":5,"locations":"x","kind":{},"rawInput":null}}}' },
  { line: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"u1","status":"completed","content":[null,5,{"type":"diff"}]}}}' },
  { line: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":null}}' },
  { line: '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":{},"update":{"sessionUpdate":"tool_call","toolCallId":["x"]}}}' },
  { line: '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":{}}}' },
  { line: '{"jsonrpc":"2.0","method":"$/cancel_request","params":null}' },
  { line: '\u0000\u0001 binary-ish \u001b[31m' },
];

const CLIENT_GARBAGE = [
  'this is not json', '{"truncated": ', '[]', '{}', 'null', '   ',
  '{"jsonrpc":"2.0","id":555,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}',
  '{"jsonrpc":"2.0","id":"x","result":null}',
  '{"jsonrpc":"2.0","method":"session/cancel","params":null}',
  '{"jsonrpc":"2.0","method":"session/cancel"}',
  '{"jsonrpc":"2.0","id":1,"method":"session/new","params":"x"}',
  '{"jsonrpc":"2.0","id":2,"method":"initialize","params":[]}',
  '{"jsonrpc":"2.0","id":3,"method":"session/load","params":{"sessionId":{},"cwd":5}}',
  '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":{}}}',
  // Answers to escalated requests (see escalated ids below), with garbage results.
  '{"jsonrpc":"2.0","id":150,"result":{"outcome":5}}',
  '{"jsonrpc":"2.0","id":151,"result":"garbage"}',
  '{"jsonrpc":"2.0","id":152,"error":{"code":-1}}',
  '{"jsonrpc":"2.0","id":153,"result":{"outcome":{"outcome":"selected","optionId":{"x":1}}}}',
];

function isAllow(response: Record<string, any>): boolean {
  const outcome = response.result?.outcome;
  return outcome?.outcome === 'selected' && ALLOW_OPTION_IDS.has(outcome.optionId);
}

function byId(responses: Record<string, any>[]): Map<unknown, Record<string, any>[]> {
  const map = new Map<unknown, Record<string, any>[]>();
  for (const r of responses) map.set(r.id, [...(map.get(r.id) ?? []), r]);
  return map;
}

async function emitAndCollect(run: BrokerRun, lines: string[], sentinel: number): Promise<Record<string, any>[]> {
  const from = run.lines.length;
  run.send(command('emit', { lines: [...lines, permissionRequest(sentinel, 'npm test')] }));
  await run.report('emitted', from);
  run.send(command('expect', { id: sentinel }));
  return (await run.report('answered', from)).responses as Record<string, any>[];
}

describe.each([
  { mode: 'interactive', args: [] as string[] },
  { mode: 'non-interactive', args: ['--non-interactive'] },
])('malformed traffic, $mode', ({ mode, args }) => {
  it('from the agent: passes through or is answered safely, never with an allow; valid requests are still decided', async () => {
    const run = startBroker({ args });
    await run.report('hello');
    const responses = await emitAndCollect(run, AGENT_GARBAGE.map((g) => g.line), 200);
    const answers = byId(responses);
    const forwardedIds = run.lines.filter((l) => l.message && 'method' in l.message && 'id' in l.message).map((l) => l.message!.id as unknown);

    for (const g of AGENT_GARBAGE) {
      const got = answers.get(g.id) ?? [];
      const label = g.line.slice(0, 160);
      if (g.id === undefined) continue;
      // Answered at most once, never with an allow.
      expect(got.length, label).toBeLessThanOrEqual(1);
      expect(got.some(isAllow), label).toBe(false);
      // Either the broker answered it or the client got it (to decide itself), never both.
      const forwarded = forwardedIds.filter((id) => id === g.id).length;
      expect(got.length + forwarded, label).toBe(1);
      if (g.decided) expect(got[0]?.result?.outcome, label).toEqual({ outcome: 'selected', optionId: 'no' });
      if (g.refused) expect(got[0]?.error?.code, label).toBe(-32001);
      if (g.invalid) expect(got[0]?.error?.code, label).toBe(-32600);
      if (mode === 'non-interactive' && g.line.includes('session/request_permission')) {
        expect(got.length, `${label}: nobody can answer it but the broker`).toBe(1);
      }
    }
    // Lines that are not requests the broker intercepts reach the client byte for byte, in order.
    const passThrough = AGENT_GARBAGE.filter((g) => g.id === undefined && !g.dropped).map((g) => g.line);
    const texts = run.lines.map((l) => l.text);
    for (const g of AGENT_GARBAGE.filter((e) => e.dropped || e.invalid)) expect(texts, `relayed: ${g.line.slice(0, 120)}`).not.toContain(g.line);
    let at = 0;
    for (const line of passThrough) {
      const found = texts.indexOf(line, at);
      expect(found, `passed through: ${line.slice(0, 120)}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
    // The sentinel after all that is decided by policy as usual, and so is a deny after it.
    expect(answers.get(200)?.[0]?.result?.outcome).toEqual({ outcome: 'selected', optionId: 'yes' });
    const more = await emitAndCollect(run, [permissionRequest(201, 'git push origin main')], 202);
    expect(byId(more).get(201)?.[0]?.result?.outcome).toEqual({ outcome: 'selected', optionId: 'no' });

    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(0);
  }, 60_000);

  it('from the client: passes through to the agent byte for byte; later requests are still decided', async () => {
    const dir = tempDir('acp-broker-fault-');
    const record = join(dir, 'agent-in.bin');
    const live = startBroker({ args, dir, env: { RECORD_TO: record } });
    await live.report('hello');
    // Four requests the policy leaves open: escalated in interactive mode, answered by fallback otherwise.
    const escalated = [150, 151, 152, 153].map((id) => permissionRequest(id, `make target-${id}`));
    const first = await emitAndCollect(live, escalated, 160);
    expect(first.filter((r) => [150, 151, 152, 153].includes(r.id)).length).toBe(mode === 'interactive' ? 0 : 4);
    for (const line of CLIENT_GARBAGE) live.send(line);
    const after = await emitAndCollect(live, [permissionRequest(170, 'git push'), permissionRequest(171, 'npm test')], 172);
    const answers = byId(after);
    expect(answers.get(170)?.map((r) => r.result?.outcome)).toEqual([{ outcome: 'selected', optionId: 'no' }]);
    expect(answers.get(171)?.map((r) => r.result?.outcome)).toEqual([{ outcome: 'selected', optionId: 'yes' }]);
    // Nothing turned into an allow on the way: no answer but the client's own garbage for 150..153.
    for (const id of [150, 151, 152, 153]) expect((answers.get(id) ?? []).some(isAllow)).toBe(false);
    live.child.stdin.end();
    const { code } = await live.exit;
    expect(code).toBe(0);
    // Every client line reached the agent unchanged and in order.
    const received = readFileSync(record, 'utf8').split('\n');
    let at = 0;
    for (const line of CLIENT_GARBAGE) {
      const found = received.indexOf(line, at);
      expect(found, `relayed to the agent: ${line}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
    expect(recordedResponses(record).filter((r) => r.id === 555)).toHaveLength(1);
  }, 60_000);
});
