/**
 * `git show ID` prints the blob ID names whole: a committed `.env` read with no path in the line.
 * Repositories built with real git in a temporary directory (loose objects; packed by `git gc`,
 * `git repack -a -d` with OFS and REF deltas; a linked worktree; a `clone --shared` with
 * alternates); each leak line is first run with real git there and must print the secret, then must
 * not be allowed under default.yaml and ci-strict.yaml. Lines naming commits that print no patch stay
 * allowed; patches are git-history.test.ts's (here `.env` is in every tree, so none is allowed). The
 * broker reads `.git` itself; git is run here only to build the fixtures.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFacts } from '../../src/facts/extract.js';
import { gitObjectUnresolvable } from '../../src/facts/git-object-facts.js';
import { realpathCanonicalizer } from '../../src/platform/canonicalize.js';
import { diskFileExists } from '../../src/platform/file-exists.js';
import { diskGitHistoryLister } from '../../src/platform/git-history-lister.js';
import { diskGitRevisionResolver } from '../../src/platform/git-revision-resolver.js';
import { diskTreeLister } from '../../src/platform/tree-lister.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { gitPrintedRevisions } from '../../src/shell/git-revisions.js';
import { sharedAnalyzer } from './helpers.js';
import { bundledPolicy } from './policy-eval.js';
import { fixtureGit, printedByRealGit } from '../helpers/real-git.js';

const SECRET = 'TOKEN=hunter2';
let root = '';
let home = '';
const ids: Record<string, string> = {};

const git = (cwd: string, ...args: string[]): string => fixtureGit(home, cwd, ...args);
const run = (cwd: string, line: string): string => printedByRealGit(home, cwd, line);

async function decide(policy: 'default' | 'ci-strict', workspace: string, line: string) {
  const canonicalize = realpathCanonicalizer();
  const facts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command: line } }, {
    workspace, home, agent: undefined, shell: await sharedAnalyzer(), canonicalize, fileExists: diskFileExists(), listTree: diskTreeLister(), resolveGitRevision: diskGitRevisionResolver(), listGitHistory: diskGitHistoryLister(),
  });
  return evaluate(bundledPolicy(policy), facts, { home, canonicalize });
}

function copyRepository(name: string): string {
  const to = join(root, name);
  execFileSync('cp', ['-a', join(root, 'loose'), to]);
  return to;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'acp-git-objects-'));
  home = join(root, 'home');
  mkdirSync(home);
  const repo = join(root, 'loose');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, '.env'), `${SECRET}\n`);
  writeFileSync(join(repo, 'a.txt'), 'hi\n');
  mkdirSync(join(repo, 'sub'));
  writeFileSync(join(repo, 'sub/b.txt'), 'b\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  // Versions of one file, for deltas once packed.
  for (let i = 0; i < 12; i++) {
    writeFileSync(join(repo, 'big.txt'), `${Array.from({ length: 300 }, (_, n) => `line ${n}`).join('\n')}\nversion ${i}\n`);
    git(repo, 'add', 'big.txt');
    git(repo, 'commit', '-qm', `version ${i}`);
  }
  ids.blob = git(repo, 'rev-parse', 'HEAD:.env');
  ids.other = git(repo, 'rev-parse', 'HEAD:a.txt');
  ids.commit = git(repo, 'rev-parse', 'HEAD');
  ids.first = git(repo, 'rev-parse', 'HEAD~12');
  ids.tree = git(repo, 'rev-parse', 'HEAD^{tree}');
  git(repo, 'tag', 'blobtag', ids.blob);
  git(repo, 'tag', '-a', '-m', 'a tag of a blob', 'annotated-blob', ids.blob);
  git(repo, 'tag', '-a', '-m', 'a tag of a commit', 'v1', ids.commit);
  const gc = copyRepository('gc');
  git(gc, 'gc', '-q');
  const repacked = copyRepository('repacked');
  git(repacked, 'repack', '-q', '-a', '-d', '-f', '--depth=50', '--window=50');
  git(repacked, 'pack-refs', '--all');
  // Without delta-base-offset, pack-objects writes REF deltas (the base named by its id).
  const refDelta = copyRepository('ref-delta');
  git(refDelta, '-c', 'repack.useDeltaBaseOffset=false', 'repack', '-q', '-a', '-d', '-f', '--depth=50', '--window=50');
  git(repo, 'worktree', 'add', '-q', join(root, 'worktree'), '-b', 'side');
  git(root, 'clone', '-q', '--shared', repo, join(root, 'shared'));
});

afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

const REPOSITORIES = ['loose', 'gc', 'repacked', 'ref-delta', 'worktree', 'shared'];

const leaks = (): readonly string[] => [
  `git show ${ids.blob}`, `git show ${ids.blob.slice(0, 7)}`, `git show ${ids.blob.slice(0, 10).toUpperCase()}`,
  `git show '${ids.blob}^{}'`, `git show '${ids.blob.slice(0, 8)}^{blob}'`, `git show '${ids.blob}^{object}'`,
  `git diff ${ids.blob} ${ids.other}`, `git diff ${ids.blob.slice(0, 7)}..${ids.other.slice(0, 7)}`, `git diff ${ids.blob} a.txt`,
  `git show blobtag`, `git show tags/blobtag`, `git show refs/tags/blobtag`, `git show 'blobtag^{}'`,
  `git show v0-3-g${ids.blob.slice(0, 7)}`, `git show --stat ${ids.blob}`, `git show HEAD ${ids.blob}`,
  `cd sub && git show ${ids.blob}`, `git -C sub show ${ids.blob}`, `echo ${ids.blob} | git show --stdin`,
];

/** Leaks through an annotated tag, or every tag. */
const tagLeaks = ['git show annotated-blob', "git show 'annotated-blob^{tag}'", 'git show --tags', 'git show --all'];

/** Lines naming commits that print no patch. */
const unchanged = (): readonly string[] => [
  `git show --stat ${ids.commit}`, `git show -s ${ids.commit.slice(0, 8)}`, 'git show --name-only v1', `git diff --stat ${ids.first} ${ids.commit}`,
  `git log ${ids.commit}`, `git log ${ids.blob}`, 'git log --all --oneline', 'git status', 'git branch',
];

/**
 * Lines printing patches of commits whose trees hold `.env` here: not allowed since patches are
 * modelled (git-history.test.ts), though some print no line of it (`git show HEAD`, `git log -p -3`).
 */
const patches = (): readonly string[] => [
  'git show', 'git show HEAD', `git show ${ids.commit}`, `git show ${ids.commit.slice(0, 8)}`, `git show ${ids.first}`, `git show ${ids.tree}`,
  'git show v1', 'git show main', 'git show HEAD~1', "git show ':/version 3'", "git show 'HEAD^{/first}'", "git show 'HEAD@{0}'",
  `git log -p ${ids.first}`, 'git log -p -3', `git diff ${ids.first} ${ids.commit}`, 'git diff HEAD~1 HEAD', `git diff ${ids.first}..HEAD`,
  `git diff ${ids.commit.slice(0, 7)}`, 'git diff',
];

describe('git show and git diff of an object named by its id', () => {
  it('each leak line prints the committed secret with real git', () => {
    const repo = join(root, 'loose');
    const silent = [...leaks(), ...tagLeaks].filter((line) => !run(repo, line).includes(SECRET));
    expect(silent).toEqual([]);
    // and what stays allowed names commits and trees: git log ignores a blob it is given
    expect(run(repo, `git log ${ids.blob}`)).toBe('');
    expect(run(repo, `git show ${ids.tree}`)).not.toContain(SECRET);
  });

  for (const name of REPOSITORIES) {
    for (const policy of ['default', 'ci-strict'] as const) {
      it(`${name}: no leak line is allowed under ${policy}.yaml`, async () => {
        const workspace = join(root, name);
        const lines = [...leaks(), ...tagLeaks];
        const allowed: string[] = [];
        for (const line of lines) if ((await decide(policy, workspace, line)).decision === 'allow') allowed.push(line);
        expect(allowed).toEqual([]);
        // read from the repository as a blob, not merely unknown
        for (const line of [`git show ${ids.blob.slice(0, 7)}`, 'git show annotated-blob']) {
          expect((await decide(policy, workspace, line)).reason).toContain("prints a committed file's content whole");
        }
      });
    }
    it(`${name}: lines naming commits that print no patch stay allowed under default.yaml and ci-strict.yaml`, async () => {
      const workspace = join(root, name);
      const lines = unchanged();
      const notAllowed: string[] = [];
      for (const policy of ['default', 'ci-strict'] as const) {
        for (const line of lines) {
          if (policy === 'ci-strict' && line === 'git branch') continue;
          const evaluation = await decide(policy, workspace, line);
          if (evaluation.decision !== 'allow') notAllowed.push(`${policy}: ${line}: ${evaluation.reason}`);
        }
      }
      expect(notAllowed).toEqual([]);
      const allowed: string[] = [];
      for (const line of patches()) if ((await decide('default', workspace, line)).decision === 'allow') allowed.push(line);
      expect(allowed).toEqual([]);
    });
  }

  it.each(['loose', 'gc', 'repacked', 'ref-delta', 'shared'])('%s: every object has the type git gives it, by full and abbreviated id', (name) => {
    const repo = join(root, name);
    const resolve = diskGitRevisionResolver();
    const objects = git(repo, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)').split('\n').map((line) => line.split(' '));
    expect(objects.length).toBeGreaterThan(40);
    const wrong = objects.filter(([, type]) => type !== 'tag').flatMap(([id, type]) => [id!, id!.slice(0, 12)]
      .filter((name) => resolve(repo, { name, reflog: false }) !== type));
    expect(wrong).toEqual([]);
  });

  it('an abbreviated id two objects share is unresolvable, as git finds it ambiguous', async () => {
    const repo = copyRepository('ambiguous');
    // Enough blobs that two share their first four hex digits (65536 buckets).
    const paths = Array.from({ length: 1500 }, (_, n) => {
      const path = join(root, `blob-${n}`);
      writeFileSync(path, `blob ${n}\n`);
      return path;
    });
    const blobIds = git(repo, 'hash-object', '-w', ...paths).split('\n');
    const seen = new Map<string, string>();
    const shared = blobIds.map((id) => id.slice(0, 4)).find((prefix) => seen.has(prefix) || !seen.set(prefix, prefix));
    expect(shared).toBeDefined();
    expect(run(repo, `git show ${shared}`)).toContain('ambiguous');
    const evaluation = await decide('default', repo, `git show ${shared}`);
    expect(evaluation.decision).toBe('ask');
    expect(evaluation.reason).toContain('ambiguous');
  });

  it('a SHA-256 repository is not read: its ids are unresolvable', async () => {
    const repo = join(root, 'sha256');
    mkdirSync(repo);
    git(repo, 'init', '-q', '--object-format=sha256');
    writeFileSync(join(repo, '.env'), `${SECRET}\n`);
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'first');
    const blob = git(repo, 'rev-parse', 'HEAD:.env');
    expect(run(repo, `git show ${blob}`)).toContain(SECRET);
    expect((await decide('default', repo, `git show ${blob}`)).decision).toBe('ask');
  });

  it('without a resolver, a revision whose type only the repository knows is unresolvable', async () => {
    const analysis = (await sharedAnalyzer()).analyze('git show main && git show HEAD~1 && git log main', { cwd: '/w', home: '/home/dev' });
    expect(gitObjectUnresolvable(analysis, undefined)).toEqual(['git show main may print a committed file\'s content: the repository cannot be read here']);
    expect(gitObjectUnresolvable(analysis, () => 'commit')).toEqual([]);
    expect(gitObjectUnresolvable(analysis, () => 'blob')).toHaveLength(1);
    // xargs adds words argv does not hold
    const xargs = (await sharedAnalyzer()).analyze('echo X | xargs git show', { cwd: '/w', home: '/home/dev' });
    expect(gitObjectUnresolvable(xargs, () => 'commit')).toHaveLength(1);
  });
});

describe('which revision words name an object of unknown type (pure)', () => {
  const bases = (line: string) => gitPrintedRevisions(line.split(' '), '/w');
  it.each([
    ['git show X', [{ name: 'X', reflog: false }]],
    ['git show X^{} X^{blob} X^{object} ^X^{tag}', Array(4).fill({ name: 'X', reflog: false })],
    ['git show X~2 X^ X^2 X^{commit} X^{tree} X^{/a..b} :/x X:.env :0:.env X: X^! X^@ X^-', []],
    ['git diff A..B', [{ name: 'A', reflog: false }, { name: 'B', reflog: false }, { name: 'A..B', reflog: false }]],
    ['git diff X@{2} @{1} @{-1}', [{ name: 'X', reflog: true }, { name: '', reflog: true }]],
    ['git -C sub show -s --format=x -- X', []],
    ['git show --end-of-options X', [{ name: 'X', reflog: false }]],
  ])('%s', (line, expected) => {
    expect(bases(line)?.bases).toEqual(expected);
  });

  it('reads the directory from -C, and finds nothing to check in other subcommands', () => {
    expect(bases('git -C sub -c a=b show X')?.directory).toBe('/w/sub');
    expect(bases('git log X')).toBeUndefined();
    expect(bases('git status')).toBeUndefined();
  });

  it.each(['git show --indexed-objects', 'git show --tags=v*', 'git diff --stdin', 'git --git-dir=/x show X', 'git show @{u}', 'git diff main@{push}'])('%s is unknown', (line) => {
    expect(bases(line)?.unknown).toHaveLength(1);
  });
});
