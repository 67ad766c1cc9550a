import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicies, validatePolicies } from '../../src/engine/pipeline.js';
import { readPolicySources } from '../../src/engine/read-policy.js';
import { tempDir } from '../helpers/cli.js';
import { shell } from '../helpers/harness.js';

const OK = 'version: 1\nrules:\n  - id: r\n    decision: allow\n    match: { command: ["npm test"] }\n    examples: { match: [{ command: "npm test" }] }\n';
const BAD_EXAMPLE = 'version: 1\nrules:\n  - id: r\n    decision: allow\n    match: { command: ["npm test"] }\n    examples: { match: [{ command: "npm run build" }] }\n';
const BAD_YAML = 'version: 1\nrules:\n  - id: r\n    decison: allow\n';

function files(texts: Record<string, string>): Record<string, string> {
  const dir = tempDir();
  return Object.fromEntries(Object.entries(texts).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return [name, join(dir, name)];
  }));
}

describe('the policy pipeline (read → parse → examples → layers)', () => {
  it('orders the layers managed, user, project whatever the order of the sources', async () => {
    const f = files({ 'u.yaml': OK, 'm.yaml': OK });
    const loaded = loadPolicies([{ file: f['u.yaml']!, layer: 'user' }, { file: f['m.yaml']!, layer: 'managed' }], await shell());
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.policy.files.map((p) => p.layer)).toEqual(['managed', 'user']);
  });

  it('any error means no policy: an unreadable file, a schema error, a failing example', async () => {
    const f = files({ 'ok.yaml': OK, 'example.yaml': BAD_EXAMPLE });
    const analyzer = await shell();
    const missing = loadPolicies([{ file: join(tempDir(), 'nope.yaml'), layer: 'user' }], analyzer);
    expect(missing).toMatchObject({ ok: false, diagnostics: [{ code: 'read_failed' }] });
    const example = loadPolicies([{ file: f['ok.yaml']!, layer: 'managed' }, { file: f['example.yaml']!, layer: 'user' }], analyzer);
    expect(example).toMatchObject({ ok: false, diagnostics: [{ code: 'example_failed', location: { file: f['example.yaml'] } }] });
  });

  it('validating before the agent starts: examples only once every file parsed, and the shell parser only then', async () => {
    const f = files({ 'ok.yaml': OK, 'bad.yaml': BAD_YAML, 'example.yaml': BAD_EXAMPLE });
    let asked = 0;
    const analyzer = () => { asked++; return shell(); };
    const read = (names: string[]) => readPolicySources(names.map((n) => ({ file: f[n]!, layer: 'user' as const })));
    const broken = read(['bad.yaml', 'example.yaml']);
    const { problems } = await validatePolicies(broken.texts, broken.diagnostics, analyzer);
    expect(problems.map((d) => d.code)).toEqual(['unknown_key', 'missing_key', 'missing_key']);
    expect(asked).toBe(0);
    const examples = read(['ok.yaml', 'example.yaml']);
    expect((await validatePolicies(examples.texts, examples.diagnostics, analyzer)).problems.map((d) => [d.code, d.location.file])).toEqual([['example_failed', f['example.yaml']]]);
    expect(asked).toBe(1);
  });

  it('a file that cannot be read is reported first, and the others keep their own names', async () => {
    const f = files({ 'bad.yaml': BAD_YAML });
    const missing = join(tempDir(), 'nope.yaml');
    const read = readPolicySources([{ file: missing, layer: 'managed' }, { file: f['bad.yaml']!, layer: 'user' }]);
    const { problems } = await validatePolicies(read.texts, read.diagnostics, shell);
    expect(problems[0]).toMatchObject({ code: 'read_failed', location: { file: missing } });
    expect(problems.slice(1).every((d) => d.location.file === f['bad.yaml'])).toBe(true);
    expect(problems.length).toBeGreaterThan(1);
  });
});
