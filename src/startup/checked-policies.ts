import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdirParents } from '../platform/mkdir.js';
import { join } from 'node:path';

const MAX_ENTRIES = 32;
/** Policies larger than this, together, are not all kept: the oldest go first, a big one is checked each time. */
const MAX_TOTAL_CHARS = 1 << 20;

/**
 * Policy contents whose examples already passed. Checking examples needs the shell parser, which
 * takes a moment to load; a policy seen before lets the broker start the agent first and load the
 * parser while the agent boots. The contents are kept whole and compared exactly: no hash to
 * collide, and no crypto module to load before the agent's spawn. A missing or damaged record only
 * means checking again.
 */
export class CheckedPolicies {
  private readonly path: string;

  constructor(stateDir: string) {
    this.path = join(stateDir, 'checked-policies.json');
  }

  allChecked(texts: readonly string[]): boolean {
    const known = new Set(this.read());
    return texts.every((t) => known.has(t));
  }

  remember(texts: readonly string[]): void {
    try {
      const kept: string[] = [];
      let total = 0;
      for (const text of new Set([...texts, ...this.read()])) {
        if (kept.length === MAX_ENTRIES) break;
        if (total + text.length > MAX_TOTAL_CHARS) continue;
        kept.push(text);
        total += text.length;
      }
      mkdirParents(join(this.path, '..'));
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: 2, policies: kept }), { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch {
      // Only a record: the next start checks again.
    }
  }

  private read(): string[] {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { version?: unknown; policies?: unknown };
      // A version 1 record (hashes) reads as nothing: each policy is then checked once more.
      return parsed.version === 2 && Array.isArray(parsed.policies) ? parsed.policies.filter((p): p is string => typeof p === 'string') : [];
    } catch {
      return [];
    }
  }
}
