import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/policy/diagnostics.js';
import { lintPolicy } from '../../src/policy/lint.js';
import { loadPolicyText } from '../../src/policy/load.js';
import { CLI, ROOT, tempDir } from '../helpers/cli.js';

/** The warnings `validate` adds for a valid policy, formatted as it prints them. */
function lint(lines: string[]): string[] {
  const text = `${lines.join('\n')}\n`;
  const loaded = loadPolicyText(text, 'p.yaml', 'user');
  if (!loaded.policy) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
  return lintPolicy(loaded.policy, text).map(formatDiagnostic);
}

const errors = (text: string) => loadPolicyText(text, 'p.yaml', 'user').diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);

describe('lint: path patterns that can never match what the broker produces', () => {
  it('`**` inside a segment', () => {
    expect(lint(['version: 1', 'rules:', '  - id: env', '    decision: deny', '    match: { paths: ["**.env", "src/**.ts"] }'])).toEqual([
      'p.yaml:5:22: warning: rule `env`: path pattern `**.env`: `**` spans directories only as a whole path segment; in `**.env` it is read as `*`, and a pattern starting with it is not anchored anywhere, so it never matches\n'
      + '  hint: write `**/*.env`',
      'p.yaml:5:32: warning: rule `env`: path pattern `src/**.ts`: `**` spans directories only as a whole path segment; in `**.ts` it is read as `*`\n'
      + '  hint: write `src/**/*.ts`',
    ]);
  });

  it('`$workspace` and `$home` without braces', () => {
    expect(lint(['version: 1', 'rules:', '  - id: ws', '    decision: deny', '    match:', '      paths:', '        - $workspace/secrets/**', '        - "$home/.aws/**"'])).toEqual([
      'p.yaml:7:11: warning: rule `ws`: path pattern `$workspace/secrets/**`: `$workspace` is not expanded (only `${workspace}` and a leading `~` are), so it only matches a directory literally named `$workspace`\n'
      + '  hint: write `${workspace}/secrets/**`',
      'p.yaml:8:11: warning: rule `ws`: path pattern `$home/.aws/**`: `$home` is not expanded (only `${workspace}` and a leading `~` are), so it only matches a directory literally named `$home`\n'
      + '  hint: write `~/.aws/**`',
    ]);
  });

  it('an unknown `${…}` variable is an error (it would never match), with a did-you-mean', () => {
    expect(errors('version: 1\nrules:\n  - id: ws\n    decision: deny\n    match: { paths: ["${workspaces}/x"] }\n')).toEqual([
      'p.yaml:5:22: error: rule `ws` `paths`: unknown variable `${workspaces}` in a path pattern\n  hint: did you mean `${workspace}`?',
    ]);
    expect(errors('version: 1\nrules:\n  - id: ws\n    decision: deny\n    match: { paths: ["/x/${HOME}/y"] }\n')[0]).toBe(
      'p.yaml:5:22: error: rule `ws` `paths`: unknown variable `${HOME}` in a path pattern\n  hint: write `~/…` for the home directory');
  });

  it('an unclosed `[` (closed ones, `[]…]` and escaped brackets are fine)', () => {
    expect(lint(['version: 1', 'rules:', '  - id: b', '    decision: deny', '    match: { paths: ["config/[abc.yaml", "x/[ab]c", "y/[]a]", "z/\\\\[a"] }'])).toEqual([
      'p.yaml:5:22: warning: rule `b`: path pattern `config/[abc.yaml`: the `[` at character 8 is never closed, so it only matches a literal `[`\n'
      + '  hint: close the character class (`[abc]`), or write `\\[` for a literal bracket',
    ]);
  });

  it('relative patterns are anchored at the workspace and by-name patterns match at any depth: no warning', () => {
    expect(lint(['version: 1', 'rules:', '  - id: r', '    decision: deny', '    match: { paths: ["src/gen/**", ".env", "*.pem", "./build/**"] }'])).toEqual([]);
  });
});

describe('lint: command patterns with a shell operator', () => {
  it('each operator, at the pattern, with the patterns to write instead; a quoted operator is a word', () => {
    expect(lint(['version: 1', 'rules:', '  - id: c', '    decision: deny', '    match:', '      command:',
      '        - curl | sh', '        - "make && make install"', '        - "echo hi; rm -rf /"', "        - echo '|'", '        - ls > out.txt'])).toEqual([
      'p.yaml:7:11: warning: rule `c`: command pattern `curl | sh`: `|` is a shell operator, and each simple command of a line is matched on its own, so this pattern can never match\n'
      + '  hint: write one pattern per command: "curl", "sh"',
      'p.yaml:8:11: warning: rule `c`: command pattern `make && make install`: `&&` is a shell operator, and each simple command of a line is matched on its own, so this pattern can never match\n'
      + '  hint: write one pattern per command: "make", "make install"',
      'p.yaml:9:11: warning: rule `c`: command pattern `echo hi; rm -rf /`: `;` is a shell operator, and each simple command of a line is matched on its own, so this pattern can never match\n'
      + '  hint: write one pattern per command: "echo hi", "rm -rf /"',
      'p.yaml:11:11: warning: rule `c`: command pattern `ls > out.txt`: `>` is a shell operator, and each simple command of a line is matched on its own, so this pattern can never match\n'
      + '  hint: match the command ("ls") and, for the redirection, a `paths` rule (redirections are path facts)',
    ]);
  });
});

describe('lint: a rule shadowed by an earlier broader rule of the same decision, only when certain', () => {
  const rule = (id: string, decision: string, match: string) => [`  - id: ${id}`, `    decision: ${decision}`, `    match: ${match}`];

  it('a command prefix: `git` then `git status`', () => {
    expect(lint(['version: 1', 'rules:', ...rule('git', 'allow', '{ command: [git] }'), ...rule('git-status', 'allow', '{ command: ["git status", "git log"] }')])).toEqual([
      'p.yaml:6:5: warning: rule `git-status` is shadowed by the earlier, broader rule `git` (line 3) with the same decision\n  hint: remove `git-status` or narrow `git`',
    ]);
    expect(lint(['version: 1', 'rules:', ...rule('npm-run', 'ask', '{ command: ["npm run *"] }'), ...rule('npm-test', 'ask', '{ command: ["npm run test"] }')])).toHaveLength(1);
  });

  it('not when unsure: options, globs, another decision or enforcement, a word that differs', () => {
    for (const [broad, narrow] of [['git', 'git -C x status'], ['git push', 'git'], ['git st*', 'git status'], ['git status', 'git stash'], ['rm -r', 'rm -r x']]) {
      expect(lint(['version: 1', 'rules:', ...rule('a', 'deny', `{ command: ["${broad}"] }`), ...rule('b', 'deny', `{ command: ["${narrow}"] }`)]), `${broad} / ${narrow}`).toEqual([]);
    }
    expect(lint(['version: 1', 'rules:', ...rule('a', 'deny', '{ command: [git] }'), ...rule('b', 'ask', '{ command: ["git push"] }')])).toEqual([]);
    expect(lint(['version: 1', 'rules:', ...rule('a', 'deny', '{ command: [git] }'), ...rule('b', 'deny', '{ command: ["git push"] }'), '    enforcement: warn'])).toEqual([]);
  });

  it('a path inside a directory: `src/**` then `src/a.ts`', () => {
    expect(lint(['version: 1', 'rules:', ...rule('src', 'allow', '{ paths: ["src/**"] }'), ...rule('src-a', 'allow', '{ paths: ["${workspace}/src/a.ts", "src/lib/**"] }')])).toEqual([
      'p.yaml:6:5: warning: rule `src-a` is shadowed by the earlier, broader rule `src` (line 3) with the same decision\n  hint: remove `src-a` or narrow `src`',
    ]);
    expect(lint(['version: 1', 'rules:', ...rule('ssh', 'deny', '{ paths: ["~/.ssh/**"] }'), ...rule('keys', 'deny', '{ paths: ["~/.ssh/id_*"] }')])).toHaveLength(1);
  });

  it('not for a deny or ask path naming a longer literal directory: that one is also resolved through symlinks, and may lead out', () => {
    expect(lint(['version: 1', 'rules:', ...rule('src', 'deny', '{ paths: ["src/**"] }'), ...rule('src-a', 'deny', '{ paths: ["src/a.ts"] }')])).toEqual([]);
    for (const [broad, narrow] of [['src/**', 'srcx/a'], ['src/**', '~/src/a'], ['src/*/**', 'src/a/b'], ['src/**', 'src/../etc/x'], ['/etc/**', 'etc/x']]) {
      expect(lint(['version: 1', 'rules:', ...rule('a', 'allow', `{ paths: ["${broad}"] }`), ...rule('b', 'allow', `{ paths: ["${narrow}"] }`)]), `${broad} / ${narrow}`).toEqual([]);
    }
  });
});

describe('lint: the policies we ship are clean', () => {
  it('`validate` on every bundled policy and every examples/**/*.yaml policy: no error, no warning', () => {
    const examples = readdirSync(join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml')).map((f) => join(ROOT, 'examples', f));
    const bundled = readdirSync(join(ROOT, 'policies')).filter((f) => f.endsWith('.yaml')).map((f) => join(ROOT, 'policies', f));
    const files = [...bundled, ...examples].sort();
    expect(files).toContain(join(ROOT, 'examples', 'layers', 'project-x', '.acp-broker', 'policy.yaml'));
    const r = spawnSync(process.execPath, [CLI, 'validate', ...files], { encoding: 'utf8', env: { ...process.env, ACP_BROKER_HOME: tempDir() } });
    expect([r.status, r.stdout]).toEqual([0, '']);
    expect(r.stderr.split('\n').filter((l) => l !== '' && !/: ok \(/.test(l))).toEqual(['0 error(s), 0 warning(s)']);
  });
});
