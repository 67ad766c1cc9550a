import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdirParents } from '../platform/mkdir.js';
import { join } from 'node:path';

const MAX_ENTRIES = 32;
/** Policies larger than this, together (with what they load to), are not all kept: the oldest go first, a big one is checked each time. */
const MAX_TOTAL_CHARS = 1 << 20;

/** A policy file's content that fully validated, with the content of every file it extends. */
export interface CheckedPolicy {
  readonly file: string;
  readonly text: string;
  readonly extended: readonly { readonly file: string; readonly text: string }[];
  /**
   * What that content loads to, as plain data, for the broker build that recorded it
   * (policy-snapshots.ts): checked only when restored, so read here as anything.
   */
  readonly loaded?: { readonly build: string; readonly [data: string]: unknown };
}

/**
 * Policy contents whose examples already passed. Checking examples needs the shell parser, which
 * takes a moment to load; a policy seen before lets the broker start the agent first and load the
 * parser while the agent boots. The contents are kept whole and compared exactly: no hash to
 * collide, and no crypto module to load before the agent's spawn. A policy counts as checked only
 * at the same path (`extends` paths are relative to it) and only while every file it extends still
 * has the content it was checked with: those files are read again here, without parsing anything.
 * A missing or damaged record only means checking again.
 */
export class CheckedPolicies {
  private readonly path: string;

  constructor(stateDir: string) {
    this.path = join(stateDir, 'checked-policies.json');
  }

  allChecked(texts: readonly { readonly source: { readonly file: string }; readonly text: string }[]): boolean {
    return this.entriesFor(texts) !== undefined;
  }

  /** Each text's entry (the most recent one whose extended files are unchanged), or undefined when one has none. */
  entriesFor(texts: readonly { readonly source: { readonly file: string }; readonly text: string }[]): CheckedPolicy[] | undefined {
    const known = this.read();
    const entries: CheckedPolicy[] = [];
    for (const t of texts) {
      const entry = known.find((k) => k.file === t.source.file && k.text === t.text && k.extended.every(unchanged));
      if (!entry) return undefined;
      entries.push(entry);
    }
    return entries;
  }

  remember(policies: readonly CheckedPolicy[]): void {
    try {
      const kept: CheckedPolicy[] = [];
      const seen = new Set<string>();
      let total = 0;
      for (const policy of [...policies, ...this.read()]) {
        const key = JSON.stringify([policy.file, policy.text, policy.extended]);
        if (seen.has(key)) continue;
        seen.add(key);
        if (kept.length === MAX_ENTRIES) break;
        const size = policy.text.length + policy.extended.reduce((n, e) => n + e.text.length, 0) + (policy.loaded ? JSON.stringify(policy.loaded).length : 0);
        if (total + size > MAX_TOTAL_CHARS) continue;
        kept.push(policy);
        total += size;
      }
      mkdirParents(join(this.path, '..'));
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: 3, policies: kept }), { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch {
      // Only a record: the next start checks again.
    }
  }

  private read(): CheckedPolicy[] {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { version?: unknown; policies?: unknown };
      // Older records (bare texts, hashes) read as nothing: each policy is then checked once more.
      return parsed.version === 3 && Array.isArray(parsed.policies) ? parsed.policies.filter(isCheckedPolicy) : [];
    } catch {
      return [];
    }
  }
}

function unchanged(extended: { readonly file: string; readonly text: string }): boolean {
  try {
    return readFileSync(extended.file, 'utf8') === extended.text;
  } catch {
    return false;
  }
}

function isCheckedPolicy(value: unknown): value is CheckedPolicy {
  const v = value as CheckedPolicy | null;
  return typeof v === 'object' && v !== null && typeof v.file === 'string' && typeof v.text === 'string' && Array.isArray(v.extended)
    && v.extended.every((e) => typeof e === 'object' && e !== null && typeof e.file === 'string' && typeof e.text === 'string')
    && (v.loaded === undefined || (typeof v.loaded === 'object' && v.loaded !== null && typeof v.loaded.build === 'string'));
}
