import type { Readable, Writable } from 'node:stream';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../protocol/line-splitter.js';

/**
 * Feed a byte stream line by line to `onLine`; lines over the maximum go straight to `oversizedTo`
 * uninspected. Backpressure: while `sink` needs draining, the source is paused.
 */
export function pumpLines(options: {
  source: Readable;
  sink: Writable;
  onLine: (line: Buffer) => void;
  onEnd: () => void;
  maxLineBytes?: number;
}): void {
  const { source, sink } = options;
  const splitter = new LineSplitter({
    line: options.onLine,
    oversized: (bytes) => { if (bytes.length) safeWrite(sink, bytes); },
  }, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  source.on('data', (chunk: Buffer) => {
    splitter.push(chunk);
    if (sink.writableNeedDrain && !source.isPaused()) {
      source.pause();
      sink.once('drain', () => source.resume());
    }
  });
  source.on('end', () => {
    splitter.end();
    options.onEnd();
  });
  source.on('error', () => { /* treated as end: the 'close' path settles everything */ });
}

/** Write without throwing on a closed peer; the lifecycle code notices closes separately. */
export function safeWrite(stream: Writable, bytes: Buffer): void {
  if (stream.destroyed || stream.writableEnded) return;
  stream.write(bytes);
}
