import { closeSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { BrokerError } from '../core/errors.js';
import { describeFsError } from '../platform/fs-errors.js';
import { mkdirParents } from '../platform/mkdir.js';
import type { AuditEvent } from './event.js';
import { maskEvent } from './mask.js';

export interface AuditSink {
  write(event: AuditEvent): void;
  close(): Promise<void>;
}

/** The bytes of one audit line: the whole event, masked in one pass (mask.ts), as JSON. */
export function auditLine(event: AuditEvent): string {
  return `${auditJson(event)}\n`;
}

/** The audit line without its newline (the sink writes that byte itself: no second copy of the line to join them). */
function auditJson(event: AuditEvent): string {
  return JSON.stringify(maskEvent(event));
}

/** How long audit lines may wait in memory before they are appended. */
const AUDIT_FLUSH_MS = 25;
/** Gathered lines are also written as soon as they would not fit in this much memory. */
const BUFFER_BYTES = 256 * 1024;

/**
 * Appends JSONL. Lines are gathered for up to `flushMs` and appended with one write: a write per
 * decision would cost more than the decision. The buffer is also written on close and when the
 * process exits, so only a hard kill can lose the last few milliseconds of events.
 *
 * A failing audit file never stops decisions (and never turns into an allow): the failure is
 * reported loudly on stderr once and decisions go on. With `required` (a CI run, whose record must
 * exist), a file that cannot be opened throws instead, before anything has started.
 */
export function fileAuditSink(path: string, warn: (message: string) => void, flushMs = AUDIT_FLUSH_MS, options: { required?: boolean } = {}): AuditSink {
  let fd: number | undefined;
  let failed = false;
  // Lines are encoded straight into one buffer: no array of strings to join, no second copy.
  const buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    used = 0;
    warn(`acp-broker: WARNING: cannot write the audit log ${path}: ${(error as Error).message}. Decisions continue without audit.`);
  };
  try {
    mkdirParents(dirname(path));
    fd = openSync(path, 'a', 0o600);
  } catch (error) {
    if (options.required) throw new BrokerError('audit_write', `cannot write the audit log ${path}: ${describeFsError(error)}`, { cause: error });
    fail(error);
  }
  // Synchronous appends of a few KiB to a local file: cheaper than a thread-pool round trip, and
  // in order by construction, which also makes the exit-time flush trivial.
  const append = (bytes: Buffer, length: number) => {
    if (failed || fd === undefined) return;
    try {
      for (let at = 0; at < length;) at += writeSync(fd, bytes, at, length - at);
    } catch (error) {
      fail(error);
    }
  };
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const length = used;
    used = 0;
    if (length > 0) append(buffer, length);
  };
  process.on('exit', flush);
  return {
    write(event) {
      if (failed || fd === undefined) return;
      const json = auditJson(event);
      // A UTF-8 character takes at most 3 bytes per UTF-16 unit; then the newline.
      const most = json.length * 3 + 1;
      if (used + most > BUFFER_BYTES) flush();
      if (most > BUFFER_BYTES) {
        const bytes = Buffer.from(`${json}\n`);
        append(bytes, bytes.length);
        return;
      }
      used += buffer.write(json, used);
      buffer[used++] = 0x0a;
      timer ??= setTimeout(flush, flushMs).unref();
    },
    async close() {
      flush();
      process.off('exit', flush);
      if (fd !== undefined) {
        try { closeSync(fd); } catch { /* already reported or nothing left to lose */ }
        fd = undefined;
      }
    },
  };
}
