import { closeSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { mkdirParents } from '../platform/mkdir.js';
import type { AuditEventV1 } from './event.js';

export interface AuditSink {
  write(event: AuditEventV1): void;
  close(): Promise<void>;
}

export const nullAuditSink: AuditSink = { write: () => {}, close: async () => {} };

/** How long audit lines may wait in memory before they are appended. */
export const AUDIT_FLUSH_MS = 25;

/**
 * Appends JSONL. Lines are gathered for up to `flushMs` and appended with one write: a write per
 * decision would cost more than the decision. The buffer is also written on close and when the
 * process exits, so only a hard kill can lose the last few milliseconds of events.
 *
 * A failing audit file never stops decisions (and never turns into an allow): the failure is
 * reported loudly on stderr once and decisions go on.
 */
export function fileAuditSink(path: string, warn: (message: string) => void, flushMs = AUDIT_FLUSH_MS): AuditSink {
  let fd: number | undefined;
  let failed = false;
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    pending = [];
    warn(`acp-broker: WARNING: cannot write the audit log ${path}: ${(error as Error).message}. Decisions continue without audit.`);
  };
  try {
    mkdirParents(dirname(path));
    fd = openSync(path, 'a', 0o600);
  } catch (error) {
    fail(error);
  }
  // Synchronous appends of a few KiB to a local file: cheaper than a thread-pool round trip, and
  // in order by construction, which also makes the exit-time flush trivial.
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (failed || fd === undefined || pending.length === 0) return;
    const bytes = Buffer.from(pending.join(''));
    pending = [];
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    } catch (error) {
      fail(error);
    }
  };
  process.on('exit', flush);
  return {
    write(event) {
      if (failed || fd === undefined) return;
      pending.push(`${JSON.stringify(event)}\n`);
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
