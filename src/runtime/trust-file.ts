import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdirParents } from '../platform/mkdir.js';
import { join } from 'node:path';
import { contentHash, type TrustRecords } from '../policy/trust.js';

/** `trust.json` in the config directory. Unreadable or corrupt → nothing is trusted (fail closed). */
export class TrustFile {
  readonly path: string;

  constructor(configDir: string) {
    this.path = join(configDir, 'trust.json');
  }

  read(): TrustRecords {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { version?: unknown; trusted?: unknown };
      if (parsed.version !== 1 || parsed.trusted === null || typeof parsed.trusted !== 'object') return { trusted: {} };
      const trusted: Record<string, string> = {};
      for (const [file, hash] of Object.entries(parsed.trusted as Record<string, unknown>)) if (typeof hash === 'string') trusted[file] = hash;
      return { trusted };
    } catch {
      return { trusted: {} };
    }
  }

  trust(file: string, text: string): void {
    const records = this.read();
    const next = { version: 1, trusted: { ...records.trusted, [file]: contentHash(text) } };
    mkdirParents(join(this.path, '..'));
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
