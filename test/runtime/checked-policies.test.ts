import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckedPolicies } from '../../src/startup/checked-policies.js';
import { tempDir } from '../helpers/cli.js';

const POLICY = 'version: 1\nrules:\n  - id: a\n    decision: allow\n    match: { kind: read }\n';

describe('the record of policies already checked', () => {
  it('knows a policy only by its exact content', () => {
    const record = new CheckedPolicies(tempDir());
    expect(record.allChecked([POLICY])).toBe(false);
    record.remember([POLICY]);
    expect(record.allChecked([POLICY])).toBe(true);
    expect(record.allChecked([POLICY.replace('read', 'reaD')])).toBe(false);
    expect(record.allChecked([POLICY, 'version: 1\n'])).toBe(false);
    expect(record.allChecked([])).toBe(true);
  });

  it('keeps the 32 most recent, and not what would make it larger than 1 MiB', () => {
    const dir = tempDir();
    const record = new CheckedPolicies(dir);
    for (let i = 0; i < 40; i++) record.remember([`${POLICY}# ${i}\n`]);
    expect(record.allChecked([`${POLICY}# 39\n`, `${POLICY}# 8\n`])).toBe(true);
    expect(record.allChecked([`${POLICY}# 7\n`])).toBe(false);
    const huge = `${POLICY}#${'x'.repeat(1 << 20)}\n`;
    record.remember([huge]);
    expect(record.allChecked([huge])).toBe(false);
    expect(record.allChecked([`${POLICY}# 39\n`])).toBe(true);
  });

  it('reads a damaged or old-format record as empty, and writes a new one', () => {
    const dir = tempDir();
    const path = join(dir, 'checked-policies.json');
    for (const content of ['{"version":1,"hashes":["abc"]}', '{not json', '{"version":2,"policies":"x"}']) {
      writeFileSync(path, content);
      const record = new CheckedPolicies(dir);
      expect(record.allChecked([POLICY])).toBe(false);
      record.remember([POLICY]);
      expect(record.allChecked([POLICY])).toBe(true);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ version: 2, policies: [POLICY] });
    }
  });
});
