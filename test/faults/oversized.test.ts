import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTERCEPTED_METHODS } from '../../src/protocol/acp.js';
import { topLevelIdAndMethod } from '../../src/protocol/json-head.js';
import { OversizedAgentLines } from '../../src/relay/oversized-agent-lines.js';
import { tempDir } from '../helpers/cli.js';
import { command, memoryOf, permissionRequest, resetPeak, startBroker } from './driver.js';

// Huge lines, through the real CLI. Up to the maximum (64 MiB by default) a line is inspected and
// relayed whole; beyond it, it streams through unparsed in pieces, so memory stays bounded whatever a
// peer sends. An agent line beyond it that may be an intercepted request (it names one, or uses
// escapes) is made unparseable for the client and, when its id can be read, refused to the agent:
// padding never gets a request past the broker. ACP_BROKER_MAX_LINE_BYTES lowers the maximum here.

const MiB = 1024 * 1024;

/** The bytes `_fault/emit-big` writes, for comparison. */
function bigUpdateHash(bytes: number): string {
  const head = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"';
  const tail = '"}}}}';
  return createHash('sha256').update(head).update('x'.repeat(bytes - head.length - tail.length - 1)).update(tail).digest('hex');
}

/** Whether a client (JSON.parse, as the ACP SDK does) could act on this line. */
function unparseable(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

async function fileHashOfLine(file: string, text: string): Promise<boolean> {
  // The agent recorded everything it read; find the line by streaming (it may be large).
  const want = createHash('sha256').update(text).digest('hex');
  let hash = createHash('sha256');
  let found = false;
  await new Promise<void>((resolve, reject) => {
    createReadStream(file).on('data', (chunk: Buffer | string) => {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        hash.update(buf.subarray(start, nl === -1 ? buf.length : nl));
        if (nl === -1) break;
        if (hash.digest('hex') === want) found = true;
        hash = createHash('sha256');
        start = nl + 1;
      }
    }).on('end', resolve).on('error', reject);
  });
  return found;
}

describe('a 20 MB line (under the default maximum)', () => {
  it('passes whole in both directions, and a 20 MB permission request is still decided', async () => {
    const dir = tempDir('acp-broker-fault-');
    const record = join(dir, 'agent-in.bin');
    const run = startBroker({ dir, env: { RECORD_TO: record } });
    await run.report('hello');

    const bytes = 20 * 1000 * 1000;
    run.send(command('emit-big', { bytes }));
    await run.report('emitted-big');
    const big = run.lines.find((l) => l.bytes === bytes - 1);
    expect(big?.sha256).toBe(bigUpdateHash(bytes));

    // Decided by policy, with 20 MB of padding: denied, then allowed.
    run.send(command('emit-big', { bytes, id: 'big-1', command: 'git push --force origin main' }));
    run.send(command('emit-big', { bytes, id: 'big-2', command: 'npm test' }));
    run.send(command('expect', { id: 'big-2' }));
    const { responses } = await run.report('answered');
    expect((responses as { id: string; result: unknown }[]).map((r) => [r.id, r.result])).toEqual([
      ['big-1', { outcome: { outcome: 'selected', optionId: 'no' } }],
      ['big-2', { outcome: { outcome: 'selected', optionId: 'yes' } }],
    ]);

    // Client → agent: a 20 MB line reaches the agent unchanged.
    const text = JSON.stringify({ jsonrpc: '2.0', method: '_zed/huge', params: { blob: 'y'.repeat(bytes) } });
    run.send(text);
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(await fileHashOfLine(record, text)).toBe(true);
  }, 120_000);
});

describe('lines over the maximum', () => {
  it('a 200 MB line streams through whole while the broker\'s memory stays bounded', async () => {
    const run = startBroker({ env: { ACP_BROKER_MAX_LINE_BYTES: String(MiB) } });
    await run.report('hello');
    const pid = run.child.pid!;
    resetPeak(pid);
    const before = memoryOf(pid);
    const bytes = 200 * MiB;
    run.send(command('emit-big', { bytes }));
    await run.report('emitted-big');
    const after = memoryOf(pid);
    const big = run.lines.find((l) => l.bytes === bytes - 1);
    expect(big?.sha256).toBe(bigUpdateHash(bytes));
    if (before && after) {
      // Buffering the line would cost at least its 200 MB; streaming costs a few pipe buffers.
      expect(after.peak - before.rss).toBeLessThan(100 * MiB);
    }
    // Still relaying and deciding after it.
    run.send(command('emit', { lines: [permissionRequest(1, 'git push')] }));
    run.send(command('expect', { id: 1 }));
    const { responses } = await run.report('answered');
    expect((responses as { result: unknown }[])[0]!.result).toEqual({ outcome: { outcome: 'selected', optionId: 'no' } });
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
  }, 180_000);

  it('an oversized permission request is refused, never reaches the client as JSON, and the next ones are decided', async () => {
    const run = startBroker({ env: { ACP_BROKER_MAX_LINE_BYTES: String(MiB) } });
    await run.report('hello');
    run.send(command('emit-big', { bytes: 3 * MiB, id: 'huge', command: 'npm test' }));
    run.send(command('emit', { lines: [permissionRequest(2, 'git push'), permissionRequest(3, 'npm test')] }));
    run.send(command('expect', { id: 3 }));
    const { responses } = await run.report('answered');
    expect((responses as { id: unknown; result?: unknown; error?: { code: number } }[]).map((r) => [r.id, r.result ?? r.error?.code])).toEqual([
      ['huge', -32603],
      [2, { outcome: { outcome: 'selected', optionId: 'no' } }],
      [3, { outcome: { outcome: 'selected', optionId: 'yes' } }],
    ]);
    const passed = run.lines.find((l) => l.bytes >= 3 * MiB - 1 && l.bytes < 3 * MiB + 16);
    expect(passed?.text).toBeDefined();
    expect(unparseable(passed!.text!)).toBe(true);
    expect(run.stderr()).toMatch(/session\/request_permission request \(id "huge"\) too large to check/);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
  }, 60_000);

  it('an oversized fs/write_text_file request (method before or after the padding, escaped or not) never reaches the client as JSON', async () => {
    const run = startBroker({ env: { ACP_BROKER_MAX_LINE_BYTES: String(MiB) } });
    await run.report('hello');
    const write = (id: number, method = 'fs/write_text_file') => ({
      head: `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{"sessionId":"s","path":"/tmp/evil","content":"`, tail: '"}}',
    });
    // The method after 2 MiB of content: nothing in the first KiB says what it is, so no answer is possible.
    const late = { head: '{"jsonrpc":"2.0","id":12,"params":{"sessionId":"s","path":"/tmp/evil","content":"', tail: '"},"method":"fs/write_text_file"}' };
    const sizes = [2 * MiB + 11, 2 * MiB + 12, 2 * MiB + 13, 2 * MiB + 14];
    const before = run.lines.length;
    run.send(command('emit-big', { bytes: sizes[0], ...write(10) }));
    run.send(command('emit-big', { bytes: sizes[1], ...write(11, 'fs\\/write_text_file') }));
    run.send(command('emit-big', { bytes: sizes[2], ...late }));
    run.send(command('emit-big', { bytes: sizes[3], ...write(13, '\\u0066s/write_text_file') }));
    run.send(command('emit', { lines: [permissionRequest(14, 'npm test')] }));
    run.send(command('expect', { id: 14 }));
    const { responses } = await run.report('answered');
    expect((responses as { id: unknown; result?: unknown; error?: { code: number; message: string } }[]).map((r) => [r.id, r.error?.code ?? r.result])).toEqual([
      [10, -32603], [11, -32603], [13, -32603], [14, { outcome: { outcome: 'selected', optionId: 'yes' } }],
    ]);
    expect((responses as { error?: { message: string } }[])[0]!.error!.message).toMatch(/fs\/write_text_file.*exceeds the maximum line size/);
    const relayed = run.lines.slice(before).filter((l) => l.bytes >= 2 * MiB);
    expect(relayed).toHaveLength(4);
    for (const line of relayed) expect(unparseable(line.text!)).toBe(true);
    // Nothing else changed: take the inserted bytes out and the agent's lines are back.
    const sent = [write(10), write(11, 'fs\\/write_text_file'), late, write(13, '\\u0066s/write_text_file')]
      .map(({ head, tail }, i) => head + 'x'.repeat(sizes[i]! - head.length - tail.length - 1) + tail);
    expect(relayed.map((l, i) => l.text!.replaceAll('\u0001', '') === sent[i])).toEqual([true, true, true, true]);
    expect(run.stderr()).toMatch(/an agent line of 2097165 bytes, .* names an intercepted method or uses escapes/);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
  }, 60_000);

  it('an oversized ordinary session/update still arrives byte-identical, without a warning', async () => {
    const run = startBroker({ env: { ACP_BROKER_MAX_LINE_BYTES: String(MiB) } });
    await run.report('hello');
    const bytes = 3 * MiB;
    run.send(command('emit-big', { bytes }));
    await run.report('emitted-big');
    expect(run.lines.find((l) => l.bytes === bytes - 1)?.sha256).toBe(bigUpdateHash(bytes));
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    expect(run.stderr()).not.toMatch(/maximum line size/);
  }, 60_000);

  it('client → agent: an oversized line reaches the agent unchanged, and the lines around it are intact', async () => {
    const dir = tempDir('acp-broker-fault-');
    const record = join(dir, 'agent-in.bin');
    const run = startBroker({ dir, env: { RECORD_TO: record, ACP_BROKER_MAX_LINE_BYTES: String(MiB) } });
    await run.report('hello');
    const before = '{"jsonrpc":"2.0","method":"_zed/before","params":{}}';
    const text = JSON.stringify({ jsonrpc: '2.0', method: '_zed/huge', params: { blob: 'z'.repeat(5 * MiB) } });
    const after = '{"jsonrpc":"2.0","method":"_zed/after","params":{}}';
    run.send(`${before}\n${text}\n${after}`);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    expect(await fileHashOfLine(record, before)).toBe(true);
    expect(await fileHashOfLine(record, text)).toBe(true);
    expect(await fileHashOfLine(record, after)).toBe(true);
  }, 60_000);
});

describe('oversized agent lines, in-process', () => {
  /** Stream `line` through the guard in pieces cut at `cuts`; what the client and the agent got. */
  function guard(line: Buffer, cuts: number[]) {
    const toClient: Buffer[] = [];
    const toAgent: string[] = [];
    const warnings: string[] = [];
    const g = new OversizedAgentLines({ maxLineBytes: 100, toClient: (b) => toClient.push(Buffer.from(b)), toAgent: (b) => toAgent.push(b.toString()), warn: (m) => warnings.push(m) });
    let at = 0;
    for (const cut of [...cuts.filter((c) => c > 0 && c < line.length).sort((a, b) => a - b), line.length]) {
      g.piece(line.subarray(at, cut), cut === line.length);
      at = cut;
    }
    return { out: Buffer.concat(toClient), toAgent, warnings };
  }

  const SPELLINGS = [...[...INTERCEPTED_METHODS].flatMap((m) => [m, m.replace('/', '\\/')]), '\\u0066s/write_text_file', 'fs\\/read_text_file'];
  const UNSPELLED = ['session/update', 'fs/other', 'terminal/output', 'request_permission', 'write_text_file'];

  it('a line naming an intercepted method in any spelling, however cut, never leaves as JSON nor with the name intact', () => {
    fc.assert(fc.property(
      fc.constantFrom(...SPELLINGS), fc.integer({ min: 0, max: 400 }), fc.array(fc.nat(600), { maxLength: 12 }), fc.boolean(),
      (method, padding, cuts, idFirst) => {
        const params = `"params":{"content":"${'y'.repeat(padding)}"}`;
        const text = idFirst ? `{"jsonrpc":"2.0","id":7,"method":"${method}",${params}}` : `{"jsonrpc":"2.0",${params},"method":"${method}","id":7}`;
        const line = Buffer.from(`${text}\n`);
        const { out, toAgent, warnings } = guard(line, cuts);
        expect(out.toString().replaceAll('\u0001', '')).toBe(line.toString());
        expect(out.at(-1)).toBe(10);
        expect(() => JSON.parse(out.toString())).toThrow();
        for (const name of [...INTERCEPTED_METHODS, '\\u', '\\/']) expect(out.includes(name)).toBe(false);
        expect(warnings).toHaveLength(1);
        // Refused to the agent when the start of the line shows what it is (here: always, it is short).
        expect(toAgent.map((a) => JSON.parse(a))).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32603, message: expect.stringMatching(/exceeds the maximum line size \(100 bytes\)/) } }]);
      },
    ), { numRuns: 1000, seed: 7 });
  });

  it('a line that cannot be an intercepted request passes byte-identical, silently, however cut', () => {
    fc.assert(fc.property(
      fc.constantFrom(...UNSPELLED), fc.string({ maxLength: 300 }), fc.array(fc.nat(400), { maxLength: 12 }),
      (method, text, cuts) => {
        const line = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { text: text.replace(/[\\/]/g, '') } })}\n`);
        fc.pre(!line.includes('\\u'));
        const { out, toAgent, warnings } = guard(line, cuts);
        expect(out.equals(line)).toBe(true);
        expect(toAgent).toEqual([]);
        expect(warnings).toEqual([]);
      },
    ), { numRuns: 500, seed: 8 });
  });

  it('keeps state per line: a clean line after a refused one passes untouched and unanswered', () => {
    const toClient: Buffer[] = [];
    const toAgent: Buffer[] = [];
    const g = new OversizedAgentLines({ maxLineBytes: 10, toClient: (b) => toClient.push(Buffer.from(b)), toAgent: (b) => toAgent.push(b), warn: () => {} });
    g.piece(Buffer.from('{"id":1,"method":"terminal/cre'), false);
    g.piece(Buffer.from('ate"}\n'), true);
    const first = Buffer.concat(toClient).toString();
    toClient.length = 0;
    g.piece(Buffer.from('{"id":2,"method":"session/update"}\n'), true);
    expect(first).toBe('{"id":1,"method":"terminal/creat\u0001e"}\n');
    expect(Buffer.concat(toClient).toString()).toBe('{"id":2,"method":"session/update"}\n');
    expect(toAgent).toHaveLength(1);
  });
});

describe('topLevelIdAndMethod (the id and method of a line too long to parse)', () => {
  it('reads top-level members only, with escapes, the last of a repeated key, and stops where the head ends', () => {
    const head = (text: string) => topLevelIdAndMethod(Buffer.from(text));
    expect(head('{"jsonrpc":"2.0","id":12,"method":"fs/write_text_file","params":{"content":"xxx')).toEqual({ id: 12, method: 'fs/write_text_file' });
    expect(head('{ "params" : {"id":1,"method":"x","a":[{"id":2}]} , "id" : "s\\"1" , "\\u006dethod":"terminal\\/create"}')).toEqual({ id: 's"1', method: 'terminal/create' });
    expect(head('{"id":1,"method":"fs/read_text_file","id":2,"method":"session/update"}')).toEqual({ id: 2, method: 'session/update' });
    expect(head('{"params":{"content":"xxxxxxxx')).toEqual({});
    expect(head('{"id":12')).toEqual({});
    expect(head('{"id":null,"method":"fs/read_text_file"}')).toEqual({ id: null, method: 'fs/read_text_file' });
    expect(head('{"id":{"a":1},"method":7}')).toEqual({});
    expect(head('[{"id":1,"method":"fs/read_text_file"}]')).toEqual({});
    expect(head('not json')).toEqual({});
  });
});
