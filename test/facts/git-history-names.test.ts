/**
 * The paths `git log -p` / `git show COMMIT` / `git diff A B` may print are names in git's trees:
 * git prints the committed content whatever is at that path on disk now. They are placed under the
 * repository's canonical directory (so an absolute deny rule on the real directory sees them when
 * the workspace is reached through a symlink) and matched as named, never canonicalised one by one
 * (a directory that is a symlink on disk today does not move what git prints). Repositories built
 * with real git; what real git prints is checked first.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFacts } from '../../src/facts/extract.js';
import { realpathCanonicalizer } from '../../src/platform/canonicalize.js';
import { diskFileExists } from '../../src/platform/file-exists.js';
import { diskGitHistoryLister } from '../../src/platform/git-history-lister.js';
import { diskGitRevisionResolver } from '../../src/platform/git-revision-resolver.js';
import { diskTreeLister } from '../../src/platform/tree-lister.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicyText } from '../../src/policy/load.js';
import type { PolicySet } from '../../src/policy/types.js';
import { sharedAnalyzer } from '../shell/helpers.js';
import { fixtureGit, printedByRealGit } from '../helpers/real-git.js';

let root = '';
const at = (...parts: string[]) => join(root, ...parts);
const git = (cwd: string, ...args: string[]) => fixtureGit(at('home'), cwd, ...args);

function policy(denied: string): PolicySet {
  const text = [
    'version: 1', 'default: allow', 'rules:',
    '  - id: protected', '    decision: deny', '    reason: protected directory',
    `    match: { paths: ["${denied}/**"] }`, '',
  ].join('\n');
  const loaded = loadPolicyText(text, 'p.yaml', 'user');
  if (!loaded.policy) throw new Error(loaded.diagnostics.map((d) => d.message).join('; '));
  return { files: [loaded.policy] };
}

async function decide(set: PolicySet, workspace: string, line: string) {
  const canonicalize = realpathCanonicalizer();
  const facts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command: line } }, {
    workspace, home: at('home'), agent: undefined, shell: await sharedAnalyzer(), canonicalize, fileExists: diskFileExists(),
    listTree: diskTreeLister(), resolveGitRevision: diskGitRevisionResolver(), listGitHistory: diskGitHistoryLister(),
  });
  return evaluate(set, facts, { home: at('home'), canonicalize }).decision;
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'history-names-')));
  mkdirSync(at('home'));
  // A repository with a committed secret/, reached as `wslink`.
  mkdirSync(at('real/secret'), { recursive: true });
  git(at('real'), 'init', '-q', '-b', 'main');
  writeFileSync(at('real/secret/k.txt'), 'COMMITTED-KEY\n');
  writeFileSync(at('real/a.txt'), 'a\n');
  git(at('real'), 'add', '.');
  git(at('real'), 'commit', '-qm', 'first');
  symlinkSync(at('real'), at('wslink'));
  // A repository whose conf/ was committed as a directory and is a link to outside/ on disk now.
  mkdirSync(at('repo/conf'), { recursive: true });
  mkdirSync(at('outside'));
  writeFileSync(at('outside/k.txt'), 'OUTSIDE-FILE\n');
  git(at('repo'), 'init', '-q', '-b', 'main');
  writeFileSync(at('repo/conf/k.txt'), 'COMMITTED-CONF\n');
  git(at('repo'), 'add', '.');
  git(at('repo'), 'commit', '-qm', 'first');
  rmSync(at('repo/conf'), { recursive: true });
  symlinkSync(at('outside'), at('repo/conf'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('history paths are names under the canonical repository directory', () => {
  it('an absolute deny rule on the real directory sees them through a symlinked workspace', async () => {
    expect(printedByRealGit(at('home'), at('wslink'), 'git show HEAD')).toContain('COMMITTED-KEY');
    expect(await decide(policy(at('real/secret')), at('wslink'), 'git show HEAD')).toBe('deny');
    expect(await decide(policy(at('real/secret')), at('wslink'), 'git log -p')).toBe('deny');
    // The same rule on a directory the history never held: nothing to deny.
    expect(await decide(policy(at('real/other')), at('wslink'), 'git show HEAD')).toBe('allow');
  });

  it('a directory that is a link on disk today does not move what git prints', async () => {
    const printed = printedByRealGit(at('home'), at('repo'), 'git show HEAD');
    expect(printed).toContain('COMMITTED-CONF');
    expect(printed).not.toContain('OUTSIDE-FILE');
    // conf/k.txt in the history is the repository's, not outside/k.txt: a rule on outside/ does not apply …
    expect(await decide(policy(at('outside')), at('repo'), 'git show HEAD')).toBe('allow');
    // … and one on the repository's conf/ does, although conf/ leads to outside/ now.
    expect(await decide(policy(at('repo/conf')), at('repo'), 'git show HEAD')).toBe('deny');
  });
});
