import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/policy/diagnostics.js';
import { loadPolicyText } from '../../src/policy/load.js';
import { compilePathMatcher } from '../../src/policy/patterns.js';
import { policyFrom } from '../helpers/harness.js';

const load = (text: string) => loadPolicyText(text, 'p.yaml', 'user');
const errors = (text: string) => load(text).diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);

describe('policy loading', () => {
  it('loads a valid policy with defaults', () => {
    const { policy, diagnostics } = load('version: 1\nrules:\n  - id: a\n    decision: allow\n    match: { kind: read }\n');
    expect(diagnostics).toEqual([]);
    expect(policy).toMatchObject({ default: 'ask', nonInteractive: 'deny', keepAgentAlwaysOptions: false });
    expect(policy!.rules[0]).toMatchObject({ id: 'a', decision: 'allow', enforcement: 'enforce', location: { file: 'p.yaml', line: 3, column: 5 } });
  });

  it('reports every problem at once with file:line:column, what is wrong and how to fix it', () => {
    const text = [
      'version: 1',          // 1
      'defualt: allow',      // 2
      'rules:',              // 3
      '  - id: a',           // 4
      '    decision: alow',  // 5
      '    match:',          // 6
      '      kind: [exec]',  // 7
      '  - id: a',           // 8
      '    decision: deny',  // 9
      '    match: { paths: ["${home}/x"], comand: ls }', // 10
    ].join('\n');
    const found = errors(text);
    expect(found).toContainEqual('p.yaml:2:1: error: policy: unknown key `defualt`\n  hint: did you mean `default`?');
    expect(found).toContainEqual(expect.stringMatching(/^p\.yaml:5:15: error: rule `a` `decision`: `alow` is not one of allow, ask, deny\n  hint: did you mean `allow`\?/));
    expect(found).toContainEqual(expect.stringMatching(/^p\.yaml:7:14: error: rule `a` `kind`: `exec` is not an ACP tool kind\n  hint: did you mean `execute`\?/));
    expect(load(text).diagnostics.map(formatDiagnostic)).toContainEqual(expect.stringMatching(/^p\.yaml:8:9: warning: duplicate rule id `a` \(first at line 4\)/));
    expect(found).toContainEqual(expect.stringMatching(/^p\.yaml:10:36: error: rule `a` match: unknown key `comand`\n  hint: did you mean `command`\?/));
    expect(found).toContainEqual('p.yaml:10:22: error: rule `a` `paths`: unknown variable `${home}` in a path pattern\n  hint: write `~/…` for the home directory');
    expect(load(text).policy).toBeUndefined();
  });

  describe('YAML syntax errors at their real position', () => {
    it('a syntax error: where the parser stopped', () => {
      expect(errors('version: 1\ndefault: ask: deny\n')).toEqual([
        'p.yaml:2:10: error: YAML syntax: Nested mappings are not allowed in compact mappings\n'
        + '  hint: write one `key: value` per line; a nested mapping starts on the next line, indented',
      ]);
      expect(errors('version: 1\nrules: [\n  - id: a\n')[0]).toMatch(/^p\.yaml:3:3: error: YAML syntax: Block collections are not allowed within flow collections\n/);
    });

    it('a string never closed: at its opening quote', () => {
      expect(errors('version: 1\ndefault: "ask\nrules: []\n')).toEqual([
        'p.yaml:2:10: error: YAML syntax: the string quoted here with " is never closed\n'
        + '  hint: close the string with the same quote on the same line, or remove the opening quote',
      ]);
      expect(errors('version: 1\nrules:\n  - id: a\n    reason: "say \\"hi\n')[0]).toMatch(/^p\.yaml:4:13: error: YAML syntax: the string quoted here with " is never closed/);
      expect(errors("version: 1\nrules:\n  - id: a\n    reason: 'it''s\n")[0]).toMatch(/^p\.yaml:4:13: error: YAML syntax: the string quoted here with ' is never closed/);
    });

    it('a tab in indentation: at the tab', () => {
      expect(errors('version: 1\nrules:\n  - id: a\n\t decision: deny\n')).toEqual([
        'p.yaml:4:1: error: YAML syntax: Tabs are not allowed as indentation\n  hint: indent with spaces: YAML does not allow tabs in indentation',
      ]);
    });

    it('a line indented deeper than the key above it: at that line\'s first token, reported once', () => {
      expect(errors('version: 1\nrules:\n  - id: a\n    decision: deny\n      reason: x\n')).toEqual([
        'p.yaml:5:7: error: YAML syntax: bad indentation: this line is indented deeper than the key above it\n'
        + '  hint: indent this line like the key above it, or give that key no value on its line to start a nested mapping',
      ]);
      expect(errors('version: 1\n  default: ask\n')[0]).toMatch(/^p\.yaml:2:3: error: YAML syntax: bad indentation/);
    });

    it('a line indented less than its mapping\'s keys: at that line\'s first token', () => {
      expect(errors('version: 1\nrules:\n  - id: a\n    decision: deny\n   reason: x\n')[0]).toMatch(/^p\.yaml:5:4: error: YAML syntax: Sequence item without - indicator\n  hint: check the indentation/);
      expect(errors('version: 1\nrules:\n  - id: a\n  decision: deny\n')[0]).toMatch(/^p\.yaml:4:3: error: YAML syntax: All mapping items must start at the same column\n/);
    });
  });

  it('requires version 1, a decision and a non-empty match', () => {
    expect(errors('rules: []')).toContainEqual(expect.stringContaining('missing `version`'));
    expect(errors('version: 2\nrules: []')).toContainEqual(expect.stringContaining('unsupported policy `version`'));
    expect(errors('version: 1\nrules:\n  - id: a\n    match: {}\n').join('\n')).toMatch(/no `decision`[\s\S]*empty `match`/);
  });

  it('rejects a bad regular expression and an empty list', () => {
    expect(errors('version: 1\nrules:\n  - id: a\n    decision: ask\n    match: { title: "/(unclosed/" }\n')[0]).toContain('invalid regular expression');
    expect(errors('version: 1\nrules:\n  - id: a\n    decision: ask\n    match: { kind: [] }\n')[0]).toContain('empty list');
  });

  it('checks examples at load time and names the failing rule', async () => {
    await expect(policyFrom([
      'version: 1', 'rules:', '  - id: env-files', '    decision: deny', '    match: { paths: ["**/.env"] }',
      '    examples:', '      match: [{ kind: read, paths: ["${workspace}/config/.envrc"] }]',
      '      not_match: [{ kind: read, paths: ["/x/.env"] }]',
    ].join('\n'))).rejects.toThrow(/7:15 rule `env-files`: example .* should match but does not\n8:19 rule `env-files`: example .* should not match but does/);
  });

  it('the bundled policies are valid and all their examples pass', async () => {
    const { readFileSync } = await import('node:fs');
    for (const name of ['default', 'ci-strict']) {
      const text = readFileSync(new URL(`../../policies/${name}.yaml`, import.meta.url), 'utf8');
      const policy = await policyFrom(text);
      expect(policy.files[0]!.rules.length, name).toBeGreaterThan(2);
    }
  });
});

describe('path patterns', () => {
  const context = { workspace: '/w', home: '/home/u' };
  const test = (pattern: string, path: string) => {
    const m = compilePathMatcher(pattern);
    if ('error' in m) throw new Error(m.error);
    return m.test(path, context);
  };
  it.each([
    ['${workspace}/**', '/w/src/a.ts', true],
    ['${workspace}/**', '/w', true],
    ['${workspace}/**', '/wx/a', false],
    ['**/.env', '/w/deep/er/.env', true],
    ['**/.env', '/w/.env.local', false],
    ['*.pem', '/a/b/key.pem', true],
    ['.env', '/a/.env', true],
    ['~/.ssh/**', '/home/u/.ssh/id_rsa', true],
    ['~/.ssh/**', '/w/.ssh/id_rsa', false],
    ['src/**', '/w/src/x/y.ts', true],
    ['src/**', '/other/src/y.ts', false],
    ['/etc/**', '/etc/hosts', true],
    ['/etc/**', '/w/etc/hosts', false],
  ])('%s vs %s → %s', (pattern, path, expected) => {
    expect(test(pattern, path)).toBe(expected);
  });
});
