import { createWriteStream, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { mkdirParents } from '../platform/mkdir.js';
import type { AuditEventV1 } from './event.js';

export interface AuditSink {
  write(event: AuditEventV1): void;
  close(): Promise<void>;
}

export const nullAuditSink: AuditSink = { write: () => {}, close: async () => {} };

/**
 * Appends JSONL. A failing audit file never stops decisions (and never turns into an allow): the
 * failure is reported loudly on stderr once and decisions go on.
 */
export function fileAuditSink(path: string, warn: (message: string) => void): AuditSink {
  let stream: WriteStream | undefined;
  let failed = false;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    warn(`acp-broker: WARNING: cannot write the audit log ${path}: ${(error as Error).message}. Decisions continue without audit.`);
  };
  try {
    mkdirParents(dirname(path));
    stream = createWriteStream(path, { flags: 'a' });
    stream.on('error', fail);
  } catch (error) {
    fail(error);
  }
  return {
    write(event) {
      if (failed || !stream) return;
      stream.write(`${JSON.stringify(event)}\n`);
    },
    close() {
      return new Promise((resolve) => {
        if (!stream || failed) return resolve();
        stream.end(() => resolve());
      });
    },
  };
}
