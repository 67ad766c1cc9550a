import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/protocol/line-splitter.js';
import { BatchWriter, pumpLines } from '../../src/relay/connect.js';

// Units under the fault suite: the pieces of the relay that keep memory bounded, bytes exact and
// ends detected, tested without processes.

function collector(): { stream: Writable; writes: Buffer[] } {
  const writes: Buffer[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { writes.push(Buffer.from(chunk)); done(); } });
  return { stream, writes };
}

describe('LineSplitter maximum', () => {
  it('hands a complete line over the maximum on as oversized even when it arrives in one chunk', () => {
    const lines: string[] = [];
    const oversized: string[] = [];
    const splitter = new LineSplitter({ line: (b) => lines.push(b.toString()), oversized: (b, end) => oversized.push(`${b.toString()}${end ? '|' : ''}`) }, 8);
    splitter.push(Buffer.from('short\nthis line is too long\nok\n'));
    splitter.end();
    expect(lines).toEqual(['short\n', 'ok\n']);
    expect(oversized.join('')).toBe('this line is too long\n|');
  });

  it('streams a long line in pieces without holding it, then resumes inspecting at the next line', () => {
    const lines: string[] = [];
    let held = 0;
    let oversizedBytes = 0;
    const splitter = new LineSplitter({ line: (b) => lines.push(b.toString()), oversized: (b) => { oversizedBytes += b.length; } }, 1024);
    for (let i = 0; i < 1000; i++) {
      splitter.push(Buffer.alloc(4096, 0x78));
      held = Math.max(held, (splitter as unknown as { pendingBytes: number }).pendingBytes);
    }
    splitter.push(Buffer.from('\n{"next":1}\n'));
    expect(held).toBeLessThanOrEqual(1024);
    expect(oversizedBytes).toBe(4096 * 1000 + 1);
    expect(lines).toEqual(['{"next":1}\n']);
  });
});

/** `work` inside one batch of `w`, as the pump relays a chunk. */
function inBatch(w: BatchWriter, work: () => void): void {
  w.begin();
  try {
    work();
  } finally {
    w.end();
  }
}

describe('BatchWriter', () => {
  it('merges adjacent views of one chunk into one write, keeps order, and writes straight outside a batch', async () => {
    const { stream, writes } = collector();
    const w = new BatchWriter(stream);
    const chunk = Buffer.from('a\nbb\nccc\n');
    inBatch(w, () => {
      w.write(chunk.subarray(0, 2));
      w.write(chunk.subarray(2, 5));
      w.write(Buffer.from('X\n')); // not adjacent: the run so far leaves first
      w.write(chunk.subarray(5, 9));
    });
    w.write(Buffer.from('late\n'));
    await new Promise((r) => setImmediate(r));
    expect(writes.map((b) => b.toString())).toEqual(['a\nbb\n', 'X\n', 'ccc\n', 'late\n']);
  });

  it('sends what one batch wrote when the batch ends, in order, adjacent views as one buffer', async () => {
    const calls: string[][] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) { calls.push([chunk.toString()]); done(); },
      writev(chunks, done) { calls.push(chunks.map((c) => (c.chunk as Buffer).toString())); done(); },
    });
    const w = new BatchWriter(stream);
    const chunk = Buffer.from('tail\nnext\nlast\n');
    let duringBatch = -1;
    inBatch(w, () => {
      w.write(Buffer.from('straddled\n'));
      w.write(chunk.subarray(0, 5));
      w.write(chunk.subarray(5, 15));
      duringBatch = calls.length;
    });
    inBatch(w, () => w.write(Buffer.from('alone\n')));
    await new Promise((r) => setImmediate(r));
    expect(duringBatch).toBe(0);
    // Two buffers, not three: the chunk's two adjacent views left as one. Uncorked, the stream
    // writes them one by one, or gathers into one writev those that wait for the peer.
    expect(calls.flat()).toEqual(['straddled\n', 'tail\nnext\nlast\n', 'alone\n']);
  });

  it('uncorked, writes that wait for a slow peer still leave in order, gathered by the stream', async () => {
    const calls: string[][] = [];
    let release: () => void = () => {};
    const stream = new Writable({
      highWaterMark: 4,
      write(chunk: Buffer, _enc, done) { calls.push([chunk.toString()]); release = done; },
      writev(chunks, done) { calls.push(chunks.map((c) => (c.chunk as Buffer).toString())); done(); },
    });
    const w = new BatchWriter(stream);
    inBatch(w, () => {
      w.write(Buffer.from('one\n'));
      w.write(Buffer.from('two\n'));
      w.write(Buffer.from('three\n'));
    });
    expect(calls).toEqual([['one\n']]);
    release();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([['one\n'], ['two\n', 'three\n']]);
  });

  it('writes nothing to a destroyed stream and does not throw', () => {
    const { stream } = collector();
    stream.destroy();
    const w = new BatchWriter(stream);
    expect(() => inBatch(w, () => w.write(Buffer.from('x\n')))).not.toThrow();
  });
});

describe('pumpLines', () => {
  it('ends once when the source fails (an error is an end: nothing waits forever)', () => {
    const source = new PassThrough();
    const { stream } = collector();
    let ends = 0;
    pumpLines({ source, sink: new BatchWriter(stream), onLine: () => {}, onEnd: () => { ends++; } });
    source.destroy(new Error('EIO'));
    return new Promise<void>((resolve) => setImmediate(() => { expect(ends).toBe(1); resolve(); }));
  });

  it('stop() detaches, destroys the source, delivers the partial line and ends once', () => {
    const source = new PassThrough();
    const { stream } = collector();
    const lines: string[] = [];
    let ends = 0;
    const pump = pumpLines({ source, sink: new BatchWriter(stream), onLine: (l) => lines.push(l.toString()), onEnd: () => { ends++; } });
    source.write('one\ntwo-partial');
    return new Promise<void>((resolve) => setImmediate(() => {
      pump.stop();
      pump.stop();
      expect(lines).toEqual(['one\n', 'two-partial']);
      expect(ends).toBe(1);
      expect(source.destroyed).toBe(true);
      resolve();
    }));
  });
});
