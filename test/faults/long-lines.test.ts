import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BatchWriter } from '../../src/relay/connect.js';
import { OversizedAgentLines } from '../../src/relay/oversized-agent-lines.js';
import { command, OPTIONS, permissionRequest, startBroker } from './driver.js';

// Long lines under the maximum whose method or escape comes late (after 300 KB): the whole line is
// judged, so a late-named request is still decided and never relayed, and a long message with a late
// escape still passes byte for byte. And a line open at the peer (one over the maximum streaming
// through) never has another message written into it.

const KiB = 1024;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('long lines through the real CLI', () => {
  it('a permission request named only after 300 KB is still decided, and the client gets none of it', async () => {
    const run = startBroker();
    await run.report('hello');
    const params = { sessionId: 'sess-1', options: OPTIONS, toolCall: { toolCallId: 'call-late', title: 'git push', kind: 'execute', rawInput: { command: 'git push' } } };
    const head = `{"jsonrpc":"2.0","id":"late","params":${JSON.stringify(params).slice(0, -1)},"_meta":{"pad":"`;
    const tail = '"}},"method":"session/request_permission"}';
    const bytes = 300 * KiB;
    const before = run.lines.length;
    run.send(command('emit-big', { bytes, head, tail }));
    run.send(command('emit', { lines: [permissionRequest('next', 'npm test')] }));
    run.send(command('expect', { id: 'next' }));
    const { responses } = await run.report('answered');
    expect((responses as { id: unknown; result?: unknown }[]).map((r) => [r.id, r.result])).toEqual([
      ['late', { outcome: { outcome: 'selected', optionId: 'no' } }],
      ['next', { outcome: { outcome: 'selected', optionId: 'yes' } }],
    ]);
    expect(run.lines.slice(before).filter((l) => l.bytes >= 64 * KiB)).toEqual([]);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
  }, 60_000);

  it('a long message whose escape comes late passes byte for byte, and the lines after it too', async () => {
    const run = startBroker();
    await run.report('hello');
    const head = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"';
    const tail = '\\u001b[0m"}}}}';
    const bytes = 500 * KiB;
    const expected = head + 'x'.repeat(bytes - head.length - tail.length - 1) + tail;
    run.send(command('emit-big', { bytes, head, tail }));
    await run.report('emitted-big');
    run.send(command('emit', { lines: [permissionRequest(1, 'git push')] }));
    run.send(command('expect', { id: 1 }));
    await run.report('answered');
    const line = run.lines.find((l) => l.bytes === bytes - 1);
    expect(line?.sha256).toBe(sha(expected));
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
  }, 60_000);
});

describe('BatchWriter: nothing enters a line that is open at the peer', () => {
  const written = () => {
    const stream = new PassThrough();
    const out: string[] = [];
    stream.on('data', (b: Buffer) => out.push(b.toString('latin1')));
    return { writer: new BatchWriter(stream), text: () => out.join('') };
  };

  it('other writes wait until the open line closes, then follow in order', () => {
    const { writer, text } = written();
    writer.openLine(Buffer.from('{"a":"xx'));
    writer.write(Buffer.from('{"other":1}\n'));
    writer.openLine(Buffer.from('yy'));
    writer.write(Buffer.from('{"other":2}\n'));
    writer.closeLine(Buffer.from('zz"}\n'));
    writer.write(Buffer.from('{"after":3}\n'));
    expect(text()).toBe('{"a":"xxyyzz"}\n{"other":1}\n{"other":2}\n{"after":3}\n');
  });
});

describe('a line over the maximum is open at the client until its last piece', () => {
  it('OversizedAgentLines marks only the step holding the line\'s end as its end, and an empty end closes it too', () => {
    const seen: [number, boolean][] = [];
    const lines = new OversizedAgentLines({ maxLineBytes: 10, toClient: (b, end) => seen.push([b.length, end]), toAgent: () => {}, warn: () => {} });
    lines.piece(Buffer.alloc(150 * KiB, 0x78), false);
    lines.piece(Buffer.from('x"}\n'), true);
    lines.piece(Buffer.alloc(10, 0x78), false);
    lines.piece(Buffer.alloc(0), true);
    expect(seen).toEqual([[64 * KiB, false], [64 * KiB, false], [22 * KiB, false], [4, true], [10, false], [0, true]]);
  });
});
