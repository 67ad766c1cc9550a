/**
 * `git log -p`, `git show COMMIT` and `git diff A B` print committed files' content as patches: a
 * `.env` committed once and deleted since is printed with no path in the line. Repositories built
 * with real git in a temporary directory (loose objects; packed with OFS and REF deltas; a clean
 * one; a shallow clone); each leak line is first run with real git and must print the secret, then
 * must not be allowed under default.yaml and ci-strict.yaml. Lines that print no patch, and patches
 * in a repository whose history holds no secret, stay allowed. The broker reads `.git` itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFacts } from '../../src/facts/extract.js';
import { gitHistoryReadFacts } from '../../src/facts/git-history-facts.js';
import { realpathCanonicalizer } from '../../src/platform/canonicalize.js';
import { diskFileExists } from '../../src/platform/file-exists.js';
import { diskGitHistoryLister } from '../../src/platform/git-history-lister.js';
import { indexPaths } from '../../src/platform/git-index.js';
import { ObjectStores } from '../../src/platform/git-object-stores.js';
import { diskGitRevisionResolver } from '../../src/platform/git-revision-resolver.js';
import { diskTreeLister } from '../../src/platform/tree-lister.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { gitHistoryReads } from '../../src/shell/git-history-reads.js';
import { sharedAnalyzer } from './helpers.js';
import { bundledPolicy } from './policy-eval.js';
import { fixtureGit, printedByRealGit } from '../helpers/real-git.js';

const SECRET = 'TOKEN=hunter2';
let root = '';
let home = '';
let firstCommit = '';

const git = (cwd: string, ...args: string[]): string => fixtureGit(home, cwd, ...args);
const run = (cwd: string, line: string): string => printedByRealGit(home, cwd, line);

async function decide(policy: 'default' | 'ci-strict', workspace: string, line: string, withHistory = true) {
  const canonicalize = realpathCanonicalizer();
  const facts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command: line } }, {
    workspace, home, agent: undefined, shell: await sharedAnalyzer(), canonicalize, fileExists: diskFileExists(), listTree: diskTreeLister(),
    resolveGitRevision: diskGitRevisionResolver(), listGitHistory: withHistory ? diskGitHistoryLister() : undefined,
  });
  return evaluate(bundledPolicy(policy), facts, { home, canonicalize });
}

/** A repository whose history is: .env and files added; .env deleted; ten versions of big.txt in src/. */
function history(repo: string, withSecret: boolean): void {
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  if (withSecret) writeFileSync(join(repo, '.env'), `${SECRET}\n`);
  writeFileSync(join(repo, 'a.txt'), 'hi\n');
  writeFileSync(join(repo, 'src/b.txt'), 'b\n');
  // A tree large enough that packing stores its versions as deltas.
  for (let n = 0; n < 60; n++) writeFileSync(join(repo, `src/file-with-a-long-name-${n}.txt`), `${n}\n`);
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  if (withSecret) git(repo, 'rm', '-q', '.env');
  writeFileSync(join(repo, 'a.txt'), 'hi\nho\n');
  git(repo, 'commit', '-qam', 'second');
  for (let i = 0; i < 10; i++) {
    writeFileSync(join(repo, `src/file-with-a-long-name-${i}.txt`), `changed ${i}\n`);
    writeFileSync(join(repo, 'src/big.txt'), `${Array.from({ length: 300 }, (_, n) => `line ${n}`).join('\n')}\nversion ${i}\n`);
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', `version ${i}`);
  }
}

function copy(from: string, name: string): string {
  const to = join(root, name);
  execFileSync('cp', ['-a', join(root, from), to]);
  return to;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'acp-git-history-'));
  home = join(root, 'home');
  mkdirSync(home);
  history(join(root, 'loose'), true);
  history(join(root, 'clean'), false);
  firstCommit = git(join(root, 'loose'), 'rev-parse', 'HEAD~11');
  git(copy('loose', 'repacked'), 'repack', '-q', '-a', '-d', '-f', '--depth=50', '--window=50');
  git(copy('loose', 'ref-delta'), '-c', 'repack.useDeltaBaseOffset=false', 'repack', '-q', '-a', '-d', '-f', '--depth=50', '--window=50');
  git(root, 'clone', '-q', '--depth', '3', `file://${join(root, 'loose')}`, join(root, 'shallow'));
});

afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

const leaks = (): readonly string[] => [
  'git log -p', 'git log -u', 'git log --patch', 'git log --patch-with-stat', 'git log --stat -p', 'git log --binary', 'git log -p main',
  'git log -p -- a.txt .env', 'git log -p .', 'git log -p -1 HEAD~10', 'git log -p -n 1 HEAD~10', 'git log -p -3 HEAD~8',
  'git log -p --max-count=2 --skip=1 HEAD~9', 'git log -p -1 --grep=second', 'git log -p -1 --full-diff -- a.txt', 'git show HEAD~10', `git show ${firstCommit}`, `git show ${firstCommit.slice(0, 8)}`, 'git show main~11',
  'git show HEAD~11 --format=%H', 'git show --oneline HEAD~10', 'git diff HEAD~11 HEAD', 'git diff HEAD~11..HEAD', 'git diff HEAD~11...HEAD~10',
  `git diff ${firstCommit} main`, 'git diff HEAD~11', 'git -C src log -p', 'cd src && git show HEAD~11',
];

/** Print no patch (verified below with real git): decided as before. */
const noPatch = ['git log --stat', 'git log --oneline', 'git log --format=%H -n 3', 'git show --stat HEAD~11', 'git show -s HEAD~11', 'git show --name-only HEAD~10', 'git diff --stat HEAD~11'];

describe('git log -p, git show and git diff of commits whose trees held a secret', () => {
  it('each leak line prints the committed secret with real git; the others print none', () => {
    const repo = join(root, 'loose');
    expect(leaks().filter((line) => !run(repo, line).includes(SECRET))).toEqual([]);
    expect(noPatch.filter((line) => run(repo, line).includes(SECRET))).toEqual([]);
    expect(run(join(root, 'clean'), 'git log -p')).toContain('version 9');
  });

  it('the packed copies hold their trees as OFS and REF deltas', () => {
    const verify = (name: string) => run(join(root, name), 'git verify-pack -v .git/objects/pack/*.idx');
    expect(verify('repacked')).toMatch(/ tree .* [0-9a-f]{40}\n/);
    expect(verify('ref-delta')).toMatch(/ tree .* [0-9a-f]{40}\n/);
  });

  it.each(['loose', 'repacked', 'ref-delta'])('%s: every object reads whole as git cat-file prints it', (name) => {
    const repo = join(root, name);
    const store = new ObjectStores([join(repo, '.git/objects')]);
    const objects = git(repo, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)').split('\n').map((line) => line.split(' '));
    expect(objects.length).toBeGreaterThan(40);
    const wrong = objects.filter(([id, type]) => {
      const content = store.content(id!);
      const expected = execFileSync('git', ['cat-file', type!, id!], { cwd: repo });
      return content === undefined || 'unknown' in content || content.type !== type || !Buffer.from(content.body).equals(expected);
    });
    store.close();
    expect(wrong).toEqual([]);
  });

  for (const name of ['loose', 'repacked', 'ref-delta']) {
    for (const policy of ['default', 'ci-strict'] as const) {
      it(`${name}: no leak line is allowed under ${policy}.yaml; lines printing no patch are`, async () => {
        const workspace = join(root, name);
        const allowed: string[] = [];
        for (const line of leaks()) if ((await decide(policy, workspace, line)).decision === 'allow') allowed.push(line);
        expect(allowed).toEqual([]);
        expect((await decide(policy, workspace, 'git log -p')).reason).toContain(`${workspace}/.env`);
        const notAllowed: string[] = [];
        for (const line of noPatch) if ((await decide(policy, workspace, line)).decision !== 'allow') notAllowed.push(line);
        expect(notAllowed).toEqual([]);
      });
    }
  }

  it.each(['default', 'ci-strict'] as const)('a clean history: patches stay allowed under %s.yaml', async (policy) => {
    const workspace = join(root, 'clean');
    const notAllowed: string[] = [];
    // (`-- .env` names the path itself: denied as a read of it, secret or not)
    for (const line of [...leaks(), ...noPatch].filter((line) => !line.includes('.env'))) {
      const evaluation = await decide(policy, workspace, line);
      if (evaluation.decision !== 'allow') notAllowed.push(`${line}: ${evaluation.reason}`);
    }
    expect(notAllowed).toEqual([]);
  });

  it('git show of a later commit reads only its own and its parents\' trees; git log -N only N steps', async () => {
    const repo = join(root, 'loose');
    const exact = ['git show HEAD', 'git diff HEAD~1 HEAD', 'git log -p -9', 'git log -p -n 3', 'git log -p -2 --skip=7 --stat', 'git log -p -1 HEAD~9'];
    expect(exact.filter((line) => run(repo, line).includes(SECRET))).toEqual([]);
    const notAllowed: string[] = [];
    for (const line of exact) if ((await decide('default', repo, line)).decision !== 'allow') notAllowed.push(line);
    expect(notAllowed).toEqual([]);
  });

  it('a path word voids git log -N\'s bound: commits it leaves out (an empty one) do not count', async () => {
    const repo = copy('loose', 'empty-head');
    git(repo, 'reset', '-q', '--hard', 'HEAD~10');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'empty');
    expect(run(repo, 'git log -p -1 .')).toContain(SECRET);
    expect(run(repo, 'git log -p -1')).not.toContain(SECRET);
    expect((await decide('default', repo, 'git log -p -1')).decision).toBe('allow');
    expect((await decide('default', repo, 'git log -p -1 .')).decision).toBe('deny');
  });

  it('git diff reads the index: a .env staged, in no commit, is printed by git diff --cached and git diff HEAD', async () => {
    const repo = copy('clean', 'staged');
    writeFileSync(join(repo, '.env'), `${SECRET}\n`);
    git(repo, 'add', '.env');
    for (const line of ['git diff --cached', 'git diff HEAD', 'git diff --staged HEAD~3']) {
      expect(run(repo, line)).toContain(SECRET);
      for (const policy of ['default', 'ci-strict'] as const) expect((await decide(policy, repo, line)).decision, `${policy}: ${line}`).toBe('deny');
    }
    expect((await decide('default', join(root, 'clean'), 'git diff --cached')).decision).toBe('allow');
  });

  it.each([['2', []], ['3', ['--skip-worktree']], ['4', []]])('index version %s: its paths as git ls-files lists them (4: unknown)', (version, flags) => {
    const repo = copy('loose', `index-${version}`);
    git(repo, 'update-index', '--index-version', version);
    if (flags.length > 0) git(repo, 'update-index', ...flags, 'a.txt');
    const paths = indexPaths(readFileSync(join(repo, '.git/index')));
    if (version === '4') expect(paths).toHaveProperty('unknown');
    else expect(paths).toEqual(git(repo, 'ls-files').split('\n'));
  });

  it('a tree whose directory mode is zero-padded (040000, old tools) is walked as git walks it', async () => {
    const repo = join(root, 'zero-padded');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(root, 'secret'), `${SECRET}\n`);
    const blob = git(repo, 'hash-object', '-w', join(root, 'secret'));
    const inner = execFileSync('git', ['mktree'], { cwd: repo, input: `100644 blob ${blob}\t.env\n`, encoding: 'utf8' }).trim();
    const outer = execFileSync('git', ['hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], {
      cwd: repo, input: Buffer.concat([Buffer.from('040000 sub\0'), Buffer.from(inner, 'hex')]), encoding: 'utf8',
    }).trim();
    git(repo, 'update-ref', 'refs/heads/main', git(repo, 'commit-tree', '-m', 'odd', outer));
    expect(run(repo, 'git log -p')).toContain(SECRET);
    expect((await decide('default', repo, 'git log -p')).reason).toContain(`${repo}/sub/.env`);
  });

  it('a shallow clone is unresolvable: its history is not its objects\' parents', async () => {
    const repo = join(root, 'shallow');
    const evaluation = await decide('default', repo, 'git log -p');
    expect(evaluation.decision).toBe('ask');
    expect(evaluation.reason).toContain('shallow');
  });

  it('a submodule is unresolvable: --submodule=diff prints its history inline', async () => {
    const inner = join(root, 'inner');
    history(inner, true);
    const outer = join(root, 'outer');
    mkdirSync(outer);
    git(outer, 'init', '-q', '-b', 'main');
    git(outer, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', inner, 'sub');
    git(join(outer, 'sub'), 'checkout', '-q', 'HEAD~11');
    git(outer, 'commit', '-qam', 'sub at its first commit');
    git(join(outer, 'sub'), 'checkout', '-q', 'main');
    git(outer, 'commit', '-qam', 'sub at main');
    expect(run(outer, 'git log -p --submodule=diff')).toContain(SECRET);
    for (const policy of ['default', 'ci-strict'] as const) {
      const evaluation = await decide(policy, outer, 'git log -p --submodule=diff');
      expect(evaluation.decision).toBe('ask');
      expect(evaluation.reason).toContain('submodule');
    }
  });

  it('a missing object is unresolvable, not a shorter history', async () => {
    const repo = copy('loose', 'broken');
    const tree = git(repo, 'rev-parse', 'HEAD~11^{tree}');
    rmSync(join(repo, '.git/objects', tree.slice(0, 2), tree.slice(2)));
    expect((await decide('default', repo, 'git log -p')).decision).toBe('ask');
  });

  it('without a lister, a patch-printing line is unresolvable', async () => {
    expect((await decide('default', join(root, 'clean'), 'git log -p', false)).decision).toBe('ask');
    const analysis = (await sharedAnalyzer()).analyze('git log -p', { cwd: '/w', home: '/home/dev' });
    expect(gitHistoryReadFacts(analysis, undefined).unresolvable).toHaveLength(1);
    const xargs = (await sharedAnalyzer()).analyze('echo X | xargs git show', { cwd: '/w', home: '/home/dev' });
    expect(gitHistoryReadFacts(xargs, () => []).unresolvable).toHaveLength(1);
  });
});

describe('which commits a git line may print patches from (pure)', () => {
  const reads = (line: string) => gitHistoryReads(line.split(' '), '/w');
  // HEAD when no word names an object (`git log -p src`: a path).
  const head = { name: 'HEAD', steps: [], unlessOthersFound: true } as const;
  it.each([
    ['git log -p', [{ name: 'HEAD', steps: [], reach: 'ancestors' }]],
    ['git log --binary X..Y', [{ name: 'X', steps: [], reach: 'ancestors' }, { name: 'Y', steps: [], reach: 'ancestors' }, { ...head, reach: 'ancestors' }]],
    ['git show', [{ name: 'HEAD', steps: [], reach: 'parents' }]],
    ['git show X~2^2 @', [{ name: 'X', steps: [1, 1, 2], reach: 'parents' }, { name: 'HEAD', steps: [], reach: 'parents' }, { ...head, reach: 'parents' }]],
    ['git show X^{/re} X^{tree}', [{ name: 'X', steps: undefined, reach: 'ancestors' }, { name: 'X', steps: [], reach: 'parents' }, { ...head, reach: 'parents' }]],
    ['git diff A B:src -- .env', [{ name: 'A', steps: [], reach: 'self' }, { name: 'B', steps: [], reach: 'self' }, { ...head, reach: 'self' }]],
    ['git diff A...B', [{ name: 'A', steps: [], reach: 'ancestors' }, { name: 'B', steps: [], reach: 'ancestors' }, { ...head, reach: 'self' }]],
    ['git diff', [{ name: 'HEAD', steps: [], reach: 'self' }]],
  ])('%s', (line, expected) => {
    expect(reads(line)?.readsIndex).toBe(line.startsWith('git diff'));
    expect(reads(line)?.revisions).toEqual(expected);
  });

  it.each([
    ['git log -p -3', 3], ['git log -p -n 3 X', 3], ['git log -p -n3 --skip=2 --stat', 5], ['git log -p --max-count=1 --reverse', 1],
    ['git log -p -3 --author=a', undefined], ['git log -p -3 -S x', undefined], ['git log -p -3 -- src', undefined], ['git log -p', undefined],
    ['git show -3', undefined],
  ])('%s: commits within %s parent steps', (line, depth) => {
    expect(reads(line as string)?.depth).toBe(depth);
  });

  it.each(['git log', 'git log --stat --oneline -n 3', 'git show --stat X', 'git show -s --format=%H', 'git diff --name-only A B', 'git status'])('%s prints no patch', (line) => {
    expect(reads(line)).toBeUndefined();
  });

  it.each(['git log -p --all', 'git show X@{1}', "git log -p :/fix", 'git --git-dir=/x log -p', 'git log -p --stdin'])('%s is unknown', (line) => {
    expect(reads(line)?.unknown.length).toBeGreaterThan(0);
  });
});
