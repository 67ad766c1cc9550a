/**
 * GNU getopt_long, argp and git's parse-options take any unique prefix of a long option for the
 * option. A unique prefix counts as that option; an ambiguous one counts as every option it could
 * be for deny rules, as none for allow rules (strictProgram). Checked against the real programs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandMatches, parseCommandPattern, type CommandPattern } from '../../src/shell/command-pattern.js';
import { analyze } from './helpers.js';

function pattern(text: string): CommandPattern {
  const parsed = parseCommandPattern(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

async function matches(patternText: string, line: string, allow = false): Promise<boolean> {
  const analysis = await analyze(line);
  return analysis.commands.some((command) => commandMatches(pattern(patternText), command, { strictProgram: allow }));
}

describe('unique prefixes are the option', () => {
  it.each([
    ['rm -rf /', 'rm --r --f /'],
    ['rm -rf /', 'rm --rec --for /'],
    ['rm -rf /', 'rm --recursiv --force /'],
    ['chmod -R 777 /', 'chmod --rec 777 /'],
    ['cp -r', 'cp --recursiv a b'],
    ['git push --force', 'git push --force-w origin main'],
    ['git push --force', 'git push --mirr origin'],
    ['git push --force-with-lease', 'git push --force-wi origin'],
    ['git clean -fdx', 'git clean --f -dx'],
    ['git reset --hard', 'git reset --ha'],
    ['git push --delete', 'git push --del origin x'],
    ['sed -i', 'sed --in-pl s/a/b/ f'],
    ['sort --output out.txt', 'sort --outp out.txt f'],
    ['grep -r', 'grep --recu x .'],
  ])('%s matches %s (deny and allow)', async (patternText, line) => {
    expect(await matches(patternText, line)).toBe(true);
    expect(await matches(patternText, line, true)).toBe(true);
  });

  it('a prefix that is a full name of nothing we know stays itself', async () => {
    expect(await matches('rm -rf /', 'rm --xyz /')).toBe(false);
  });

  it('a value of a unique valued prefix is not positional', async () => {
    expect(await matches('git push origin', 'git push --rep origin evil', true)).toBe(false);
    expect(await matches('git push evil', 'git push --rep origin evil')).toBe(true);
  });
});

describe('ambiguous prefixes: every option for deny, none for allow', () => {
  it.each([
    ['git push --force', 'git push --forc origin main'],
    ['git push --force', 'git push --fo origin main'],
    ['git push --delete', 'git push --d origin x'],
    ['cp -r', 'cp --re a b'],
    ['curl -o x', 'curl --outp x https://h'],
  ])('%s: %s', async (patternText, line) => {
    expect(await matches(patternText, line)).toBe(true);
    expect(await matches(patternText, line, true)).toBe(false);
  });

  it('a prefix known only partly (npm, curl) is ambiguous even with one candidate', async () => {
    expect(await matches('npm --prefix', 'npm --pref /x test')).toBe(true);
    expect(await matches('npm --prefix', 'npm --pref /x test', true)).toBe(false);
  });

  it('an ambiguous prefix whose candidates disagree on a value leaves allow rules out', async () => {
    // cp: --reflink takes no separate value, --target-directory does: `--t` is ambiguous only by
    // the program's own list; `--s` (sparse= / suffix= / symbolic-link / strip-trailing-slashes) mixes.
    expect(await matches('cp a', 'cp --s a b', true)).toBe(false);
    expect(await matches('cp a', 'cp a b', true)).toBe(true);
  });
});

const dirs: string[] = [];
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'abbrev-'));
  dirs.push(dir);
  return dir;
}

describe('the real programs agree', () => {
  it('rm --r --f removes a tree; cp --re is ambiguous', () => {
    const dir = temp();
    mkdirSync(join(dir, 'd', 'e'), { recursive: true });
    writeFileSync(join(dir, 'd', 'e', 'f'), '');
    execFileSync('rm', ['--r', '--f', join(dir, 'd')]);
    expect(existsSync(join(dir, 'd'))).toBe(false);
    writeFileSync(join(dir, 'a'), '');
    const cp = spawnSync('cp', ['--re', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' });
    expect(cp.status).not.toBe(0);
    expect(cp.stderr).toMatch(/ambiguous/);
  });

  it('git push --force-w forces, --forc is ambiguous, --mirr mirrors', () => {
    const dir = temp();
    const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    git(dir, 'init', '-q', '--bare', 'bare');
    git(dir, 'init', '-q', 'work');
    const work = join(dir, 'work');
    git(work, '-c', 'user.email=a@b', '-c', 'user.name=n', 'commit', '-q', '--allow-empty', '-m', 'x');
    git(work, 'remote', 'add', 'o', join(dir, 'bare'));
    expect(git(work, 'push', '--force-w', 'o', 'HEAD:main').status).toBe(0);
    const ambiguous = git(work, 'push', '--forc', 'o', 'HEAD:main');
    expect(ambiguous.status).not.toBe(0);
    expect(ambiguous.stderr).toMatch(/ambiguous/);
    expect(git(work, 'push', '--mirr', '--dry-run', 'o').status).toBe(0);
    expect(git(work, '--no-pag', 'status').status).not.toBe(0);
  });
});

describe('prefixes where we do not know every option', () => {
  it('a git subcommand without a table: an unknown long option may be any option it begins', async () => {
    expect(await matches('git config --global', 'git config --glob user.name x')).toBe(true);
    expect(await matches('git config --global', 'git config --glob user.name x', true)).toBe(false);
    expect(await matches('git config --global', 'git config --local user.name x')).toBe(false);
    expect(await matches('git worktree add --force', 'git worktree add --forc x')).toBe(true);
  });
});
