import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePolicies, type Validated } from '../../src/engine/pipeline.js';
import { readPolicySources, type PolicySource } from '../../src/engine/read-policy.js';
import { sameStructure } from '../../src/policy/snapshot.js';
import type { Layer } from '../../src/policy/types.js';
import { CheckedPolicies, type CheckedPolicy } from '../../src/startup/checked-policies.js';
import { recordsOf, restoreValidated } from '../../src/startup/policy-snapshots.js';
import { tempDir } from '../helpers/cli.js';
import { shell } from '../helpers/harness.js';

// The record of known-good policies keeps what each loaded to, for one build: a start of the same
// build on the same texts restores it instead of parsing. Anything else parses again.
const TEAM = 'version: 1\ndefault: ask\nrules:\n  - id: no-curl\n    decision: deny\n    match: { command: [curl] }\n    examples: { match: [{ command: "curl https://x" }] }\n';
const USER = 'version: 1\nextends: [default, ./team.yaml]\nrules:\n  - id: tests\n    decision: allow\n    reason: tests are fine\n    match: { command: ["npm test"] }\n';

async function recorded(layer: Layer = 'user', build: string | null = 'build-1') {
  const dir = tempDir();
  writeFileSync(join(dir, 'team.yaml'), TEAM);
  writeFileSync(join(dir, 'user.yaml'), USER);
  const sources: PolicySource[] = [{ file: join(dir, 'user.yaml'), layer }];
  const read = readPolicySources(sources);
  const analyzer = await shell();
  const result = await validatePolicies(read.texts, read.diagnostics, async () => analyzer);
  expect(result.problems.filter((p) => p.severity === 'error')).toEqual([]);
  const record = new CheckedPolicies(tempDir());
  record.remember(recordsOf(result.checked, build ?? undefined));
  /** What a later start finds: each text's entry, and what it restores for `atBuild`. */
  const restore = (atBuild: string | undefined): Validated | undefined => {
    const again = readPolicySources(sources);
    const entries = record.entriesFor(again.texts);
    return entries && restoreValidated(again.texts, entries, atBuild);
  };
  return { dir, sources, record, validated: result.loaded!, restore };
}

describe('a known-good policy restored from the record', () => {
  it('restores what the validation loaded, extended files and warnings included', async () => {
    const { validated, restore } = await recorded();
    const restored = restore('build-1');
    expect(restored?.policies.ok).toBe(true);
    expect(sameStructure(restored!.policies, validated.policies)).toBe(true);
    expect(restored!.checked.map((c) => [c.file, c.text, c.extended])).toEqual(validated.checked.map((c) => [c.file, c.text, c.extended]));
  });

  it('parses again for another build or none: a build may load differently', async () => {
    const { restore, record, sources } = await recorded();
    expect(restore('build-2')).toBeUndefined();
    expect(restore(undefined)).toBeUndefined();
    // Recorded without a build id: known good (the early start) but nothing to restore.
    const bare = await recorded('user', null);
    expect(bare.record.allChecked(readPolicySources(bare.sources).texts)).toBe(true);
    expect(bare.restore('build-1')).toBeUndefined();
    expect(record.allChecked(readPolicySources(sources).texts)).toBe(true);
  });

  it('parses again once the text or a file it extends changed, and restores again once they are back', async () => {
    const { dir, restore } = await recorded();
    writeFileSync(join(dir, 'team.yaml'), TEAM.replace('curl', 'wget'));
    expect(restore('build-1')).toBeUndefined();
    writeFileSync(join(dir, 'team.yaml'), TEAM);
    expect(restore('build-1')).toBeDefined();
    writeFileSync(join(dir, 'user.yaml'), `${USER}# edited\n`);
    expect(restore('build-1')).toBeUndefined();
  });

  it('never restores the managed layer, nor a snapshot recorded for another layer', async () => {
    const managed = await recorded('managed');
    expect(managed.record.allChecked(readPolicySources(managed.sources).texts)).toBe(true);
    expect(managed.restore('build-1')).toBeUndefined();
    const { sources, record } = await recorded('user');
    const asProject = sources.map((s) => ({ ...s, layer: 'project' as const }));
    const texts = readPolicySources(asProject).texts;
    expect(restoreValidated(texts, record.entriesFor(texts)!, 'build-1')).toBeUndefined();
  });

  it('a damaged record only means parsing again', async () => {
    const { record, sources, restore } = await recorded();
    const path = (record as unknown as { path: string }).path;
    const good = readFileSync(path, 'utf8');
    const damage = (edit: (loaded: Record<string, unknown>) => void) => {
      const parsed = JSON.parse(good) as { policies: (CheckedPolicy & { loaded: Record<string, unknown> })[] };
      edit(parsed.policies[0]!.loaded);
      writeFileSync(path, JSON.stringify(parsed));
      return restore('build-1');
    };
    expect(damage(() => {})).toBeDefined(); // (control) rewritten as it was
    expect(damage((l) => { l.files = 'x'; })).toBeUndefined();
    expect(damage((l) => { (l.files as { rules: { decision: string }[] }[])[1]!.rules[0]!.decision = 'alow'; })).toBeUndefined();
    expect(damage((l) => { l.diagnostics = [{ severity: 'error', code: 'bad_value', message: 'x', location: { file: 'f', line: 1, column: 1 } }]; })).toBeUndefined();
    expect(damage((l) => { l.layer = 'project'; })).toBeUndefined();
    expect(damage((l) => { delete l.files; })).toBeUndefined();
    writeFileSync(path, good.slice(0, good.length / 2));
    expect(restore('build-1')).toBeUndefined();
    expect(record.allChecked(readPolicySources(sources).texts)).toBe(false);
  });
});
