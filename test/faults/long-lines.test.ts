import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BatchWriter } from '../../src/relay/connect.js';
import { command, OPTIONS, permissionRequest, startBroker } from './driver.js';

// Long lines stream: a line that straddles chunks goes on as it arrives once its first 64 KiB hold
// nothing the broker would look at (protocol/line-splitter.ts). If a later piece does, the whole line
// is judged when it ends; forwarded unchanged, only its rest follows; otherwise the client's copy is
// cut short with a byte no JSON allows, so that the part already sent can never be acted on.

const KiB = 1024;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
function unparseable(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

describe('long lines through the real CLI', () => {
  it('a permission request named only after 300 KB is still decided, and the client never gets it whole', async () => {
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
    // What reached the client of it: its first bytes, cut short (the line's own bytes never complete).
    const relayed = run.lines.slice(before).filter((l) => l.bytes >= 64 * KiB);
    expect(relayed).toHaveLength(1);
    expect(relayed[0]!.bytes).toBeLessThan(bytes - 1);
    expect(relayed[0]!.text!.endsWith('\x01')).toBe(true);
    expect(unparseable(relayed[0]!.text!)).toBe(true);
    expect(run.stderr()).toMatch(/a line of 307200 bytes from the agent, whose first \d+ bytes were already relayed, needed a look .* cut short/);
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
    expect(run.stderr()).not.toMatch(/cut short/);
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

  it('a partly sent line forwarded as it came gets its rest; anything else first cuts it short', () => {
    const line = Buffer.from('{"a":"xxyy"}\n');
    for (const [judge, want, cut] of [
      [(w: BatchWriter) => w.write(line), '{"a":"xxyy"}\n{"waited":1}\n', false],
      [(w: BatchWriter) => { w.write(Buffer.from('{"answer":1}\n')); w.write(line); }, '{"a":"xx\x01\n{"waited":1}\n{"answer":1}\n{"a":"xxyy"}\n', true],
      [() => {}, '{"a":"xx\x01\n{"waited":1}\n', true],
    ] as const) {
      const { writer, text } = written();
      writer.openLine(line.subarray(0, 8));
      writer.write(Buffer.from('{"waited":1}\n'));
      expect(writer.judgePartlySent(line, 8, () => judge(writer))).toBe(cut);
      expect(text()).toBe(want);
    }
  });
});
