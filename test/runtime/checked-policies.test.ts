import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckedPolicies, type CheckedPolicy } from '../../src/startup/checked-policies.js';
import { tempDir } from '../helpers/cli.js';

const POLICY = 'version: 1\nrules:\n  - id: a\n    decision: allow\n    match: { kind: read }\n';
const FILE = '/etc/p.yaml';

/** As start-up reads them: each source's file and text. */
const read = (...texts: string[]) => texts.map((text) => ({ source: { file: FILE }, text }));
const checked = (text: string, extended: CheckedPolicy['extended'] = []): CheckedPolicy => ({ file: FILE, text, extended });

describe('the record of policies already checked', () => {
  it('knows a policy only by its exact content at the same path', () => {
    const record = new CheckedPolicies(tempDir());
    expect(record.allChecked(read(POLICY))).toBe(false);
    record.remember([checked(POLICY)]);
    expect(record.allChecked(read(POLICY))).toBe(true);
    expect(record.allChecked(read(POLICY.replace('read', 'reaD')))).toBe(false);
    expect(record.allChecked(read(POLICY, 'version: 1\n'))).toBe(false);
    expect(record.allChecked([{ source: { file: '/elsewhere/p.yaml' }, text: POLICY }])).toBe(false);
    expect(record.allChecked([])).toBe(true);
  });

  it('a policy that extends files counts as checked only while each still has the content it was checked with', () => {
    const dir = tempDir();
    const base = join(dir, 'base.yaml');
    writeFileSync(base, POLICY);
    const extending = 'version: 1\nextends: ./base.yaml\n';
    const record = new CheckedPolicies(tempDir());
    record.remember([checked(extending, [{ file: base, text: POLICY }])]);
    expect(record.allChecked(read(extending))).toBe(true);
    writeFileSync(base, POLICY.replace('allow', 'deny'));
    expect(record.allChecked(read(extending))).toBe(false);
    writeFileSync(base, POLICY);
    expect(record.allChecked(read(extending))).toBe(true);
    record.remember([checked(extending, [{ file: join(dir, 'gone.yaml'), text: POLICY }])]);
    // The newer record names a missing file; the older one still holds.
    expect(record.allChecked(read(extending))).toBe(true);
  });

  it('keeps the 32 most recent, and not what would make it larger than 1 MiB', () => {
    const dir = tempDir();
    const record = new CheckedPolicies(dir);
    for (let i = 0; i < 40; i++) record.remember([checked(`${POLICY}# ${i}\n`)]);
    expect(record.allChecked(read(`${POLICY}# 39\n`, `${POLICY}# 8\n`))).toBe(true);
    expect(record.allChecked(read(`${POLICY}# 7\n`))).toBe(false);
    const huge = `${POLICY}#${'x'.repeat(1 << 20)}\n`;
    record.remember([checked(huge)]);
    expect(record.allChecked(read(huge))).toBe(false);
    expect(record.allChecked(read(`${POLICY}# 39\n`))).toBe(true);
    const hugeBase = checked(POLICY, [{ file: join(dir, 'x'), text: 'x'.repeat(1 << 20) }]);
    record.remember([hugeBase]);
    expect(JSON.parse(readFileSync(join(dir, 'checked-policies.json'), 'utf8')).policies).not.toContainEqual(hugeBase);
  });

  it('reads a damaged or old-format record as empty, and writes a new one', () => {
    const dir = tempDir();
    const path = join(dir, 'checked-policies.json');
    for (const content of ['{"version":1,"hashes":["abc"]}', '{not json', `{"version":2,"policies":[${JSON.stringify(POLICY)}]}`, '{"version":3,"policies":[{"file":1}]}']) {
      writeFileSync(path, content);
      const record = new CheckedPolicies(dir);
      expect(record.allChecked(read(POLICY))).toBe(false);
      record.remember([checked(POLICY)]);
      expect(record.allChecked(read(POLICY))).toBe(true);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ version: 3, policies: [{ file: FILE, text: POLICY, extended: [] }] });
    }
  });
});
