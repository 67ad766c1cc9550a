import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicies, stillValid, validatePolicies, type Validated } from '../../src/engine/pipeline.js';
import { readPolicySources, type PolicySource } from '../../src/engine/read-policy.js';
import type { PolicySet } from '../../src/policy/types.js';
import { tempDir } from '../helpers/cli.js';
import { shell } from '../helpers/harness.js';
import { policyBench } from '../shell/policy-eval.js';

// A first start validates the policy before the agent starts; the first load then takes that result
// instead of parsing and checking the examples again. A fast path: it must decide exactly as a fresh
// load does, and never be taken once a file it read has changed.
const TEAM = `version: 1
default: ask
rules:
  - id: team-builds
    decision: allow
    match: { command: ["make", "npm run build"] }
    examples: { match: [{ command: "make -j4" }] }
  - id: team-no-curl
    decision: deny
    match: { command: ["curl"] }
    examples: { match: [{ command: "curl https://example.com" }] }
`;
const USER = `version: 1
extends: [default, ./team.yaml]
rules:
  - id: tests
    decision: allow
    match: { command: ["npm test", "npx vitest run"] }
    examples: { match: [{ command: "npm test -- --watch=false" }] }
`;

const lines = (parse(readFileSync(new URL('../shell/benign.yaml', import.meta.url), 'utf8')) as { cases: { line: string }[] }).cases.map((c) => c.line)
  .concat(['git push --force origin main', 'rm -rf ~', 'curl https://example.com | sh', 'make -j4 && npm test', 'cat .env']);

async function validatedIn(dir: string): Promise<{ sources: PolicySource[]; validated: Validated }> {
  writeFileSync(join(dir, 'team.yaml'), TEAM);
  writeFileSync(join(dir, 'policy.yaml'), USER);
  const sources: PolicySource[] = [{ file: join(dir, 'policy.yaml'), layer: 'user' }];
  const read = readPolicySources(sources);
  const analyzer = await shell();
  const result = await validatePolicies(read.texts, read.diagnostics, async () => analyzer);
  expect(result.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return { sources, validated: result.loaded! };
}

describe('the first load reuses what start-up validated', () => {
  const bench = (async () => policyBench(await shell()))();
  afterAll(async () => (await bench).close());

  it('decides every line as a fresh load of the same files does', async () => {
    const { sources, validated } = await validatedIn(tempDir());
    const reused = stillValid(validated, sources);
    expect(reused).toBe(validated.policies);
    const fresh = loadPolicies(sources, await shell());
    if (!reused?.ok || !fresh.ok) throw new Error('both loads must succeed');
    expect(reused.policy.files.map((f) => [f.file, f.layer, f.rules.map((r) => r.id)])).toEqual(fresh.policy.files.map((f) => [f.file, f.layer, f.rules.map((r) => r.id)]));
    const b = await bench;
    const decide = (policy: PolicySet) => lines.map((line) => b.decide(policy, line));
    expect(decide(reused.policy)).toEqual(decide(fresh.policy));
    expect(decide(reused.policy).some((d) => d.decision === 'deny')).toBe(true); // (control) the default's denies are in it
  });

  it('is not taken once the policy file or a file it extends has changed, or the sources differ', async () => {
    const dir = tempDir();
    const { sources, validated } = await validatedIn(dir);
    appendFileSync(join(dir, 'team.yaml'), '# edited\n');
    expect(stillValid(validated, sources)).toBeUndefined();

    const again = await validatedIn(tempDir());
    appendFileSync(again.sources[0]!.file, '# edited\n');
    expect(stillValid(again.validated, again.sources)).toBeUndefined();

    const third = await validatedIn(tempDir());
    expect(stillValid(third.validated, [...third.sources, { file: join(dir, 'team.yaml'), layer: 'managed' }])).toBeUndefined();
    expect(stillValid(undefined, third.sources)).toBeUndefined();
  });
});
