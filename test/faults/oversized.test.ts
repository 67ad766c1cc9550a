import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { command, memoryOf, permissionRequest, resetPeak, startBroker } from './driver.js';

// Huge lines, through the real CLI. Up to the maximum (64 MiB by default) a line is inspected and
// relayed whole; beyond it, it streams through uninspected in pieces, so memory stays bounded
// whatever a peer sends. ACP_BROKER_MAX_LINE_BYTES lowers the maximum for these tests.

const MiB = 1024 * 1024;

/** The bytes `_fault/emit-big` writes, for comparison. */
function bigUpdateHash(bytes: number): string {
  const head = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"';
  const tail = '"}}}}';
  return createHash('sha256').update(head).update('x'.repeat(bytes - head.length - tail.length - 1)).update(tail).digest('hex');
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

  it('an oversized permission request is never answered by the broker (it reaches the client uninspected); the next one is decided', async () => {
    const run = startBroker({ env: { ACP_BROKER_MAX_LINE_BYTES: String(MiB) } });
    await run.report('hello');
    run.send(command('emit-big', { bytes: 3 * MiB, id: 'huge', command: 'npm test' }));
    run.send(command('emit', { lines: [permissionRequest(2, 'git push'), permissionRequest(3, 'npm test')] }));
    run.send(command('expect', { id: 3 }));
    const { responses } = await run.report('answered');
    expect((responses as { id: unknown; result: unknown }[]).map((r) => [r.id, r.result])).toEqual([
      [2, { outcome: { outcome: 'selected', optionId: 'no' } }],
      [3, { outcome: { outcome: 'selected', optionId: 'yes' } }],
    ]);
    const passed = run.lines.find((l) => l.bytes === 3 * MiB - 1);
    expect(passed).toBeDefined();
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
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
