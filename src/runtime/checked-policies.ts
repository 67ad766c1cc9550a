import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdirParents } from '../platform/mkdir.js';
import { join } from 'node:path';
import { contentHash } from '../policy/trust.js';

const MAX_ENTRIES = 200;

/**
 * Policy contents whose examples already passed. Checking examples needs the shell parser, which
 * takes a moment to load; a policy seen before lets the broker start the agent first and load the
 * parser while the agent boots. A missing or damaged cache only means checking again.
 */
export class CheckedPolicies {
  private readonly path: string;

  constructor(stateDir: string) {
    this.path = join(stateDir, 'checked-policies.json');
  }

  allChecked(texts: readonly string[]): boolean {
    const known = new Set(this.read());
    return texts.every((t) => known.has(contentHash(t)));
  }

  remember(texts: readonly string[]): void {
    try {
      const hashes = [...new Set([...texts.map(contentHash), ...this.read()])].slice(0, MAX_ENTRIES);
      mkdirParents(join(this.path, '..'));
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: 1, hashes }));
      renameSync(tmp, this.path);
    } catch {
      // Only a cache: the next start checks again.
    }
  }

  private read(): string[] {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { version?: unknown; hashes?: unknown };
      return parsed.version === 1 && Array.isArray(parsed.hashes) ? parsed.hashes.filter((h): h is string => typeof h === 'string') : [];
    } catch {
      return [];
    }
  }
}
