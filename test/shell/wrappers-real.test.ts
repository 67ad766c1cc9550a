/**
 * The runner grammars against the real programs installed here: each line runs `echo ran` through
 * a runner (in a temp directory, no input); the analysis must find exactly that inner command, and
 * the files the runner really wrote must be the write redirections it reports.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'runners-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function installed(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
}
const isRoot = process.getuid?.() === 0;

const LINES: [line: string, program: string, writes: string[]][] = [
  ["flock lk -c 'echo ran'", 'flock', ['lk']], // the lock file is created when missing
  ["flock --sh lk --command 'echo ran'", 'flock', ['lk']], // the lock file is created when missing
  ['flock -w 5 lk echo ran', 'flock', ['lk']], // the lock file is created when missing
  ['taskset -c 0 echo ran', 'taskset', []],
  ['taskset 0x1 echo ran', 'taskset', []],
  ['chrt -o 0 echo ran', 'chrt', []],
  ['chrt --oth 0 echo ran', 'chrt', []],
  ['prlimit --nofile=100 -c echo ran', 'prlimit', []],
  ['setsid -w echo ran', 'setsid', []],
  ['nice --adj=1 echo ran', 'nice', []],
  ['stdbuf --outp=0 echo ran', 'stdbuf', []],
  ['timeout --s=KILL 5 echo ran', 'timeout', []],
  ['env --ch=. echo ran', 'env', []],
  ["env -S 'echo ran'", 'env', []],
  ["script -qc 'echo ran' sl", 'script', ['sl']],
  ['strace -o so echo ran', 'strace', ['so']],
  ['valgrind -q --log-file=vl echo ran', 'valgrind', ['vl']],
  ['setpriv --nnp echo ran', 'setpriv', []],
  ['fakeroot -- echo ran', 'fakeroot', []],
  ['ionice -c 3 echo ran', 'ionice', []],
  ['nohup echo ran', 'nohup', []],
  ['chroot / echo ran', 'chroot', []],
  ['chroot --skip-chdir / echo ran', 'chroot', []],
  ['unshare -r echo ran', 'unshare', []],
  ['unshare --map-root-user --fork echo ran', 'unshare', []],
  ['setpriv --reuid=0 echo ran', 'setpriv', []],
  ['runuser -u root -- echo ran', 'runuser', []],
  ["runuser root -c 'echo ran'", 'runuser', []],
  ['taskset -a 0x1 echo ran', 'taskset', []],
  ['strace -qq -o /dev/null -E X=1 echo ran', 'strace', []],
  ["su --comm 'echo ran'", 'su', []],
  ["sg root -c 'echo ran'", 'sg', []],
];

describe('runners run what the analysis says', () => {
  it.each(LINES)('%s', async (line, program, writes) => {
    if (!installed(program) || (['su', 'sg', 'chroot', 'runuser', 'setpriv'].includes(program) && !isRoot)) return;
    const cwd = mkdtempSync(join(dir, 'case-'));
    const real = spawnSync('bash', ['-c', line], { cwd, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (real.status !== 0 && /Operation not permitted|Permission denied|ptrace|not supported|Invalid argument/i.test(real.stderr ?? '')) return; // sandboxed CI
    expect(real.stdout.trim()).toBe('ran');
    const analysis = await analyze(line, { cwd, home: '/home/dev' });
    expect(analysis.commands.at(-1)!.argv).toEqual(['echo', 'ran']);
    const reported = analysis.redirections.filter((r) => r.access === 'write').map((r) => r.path);
    expect(reported).toEqual(writes.map((file) => join(cwd, file)));
    for (const file of writes) expect(existsSync(join(cwd, file))).toBe(true);
  });
});

describe('git runs the code of rebase -x as the analysis says', () => {
  it.each(["git rebase -q -ix 'touch ran' HEAD~1", "git rebase -q --exe='touch ran' HEAD~1"])('%s', async (line) => {
    const cwd = mkdtempSync(join(dir, 'git-'));
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_SEQUENCE_EDITOR: 'true', GIT_AUTHOR_NAME: 'n', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'n', GIT_COMMITTER_EMAIL: 'a@b' };
    spawnSync('git', ['init', '-q'], { cwd, env });
    for (const message of ['a', 'b']) spawnSync('git', ['commit', '-q', '--allow-empty', '-m', message], { cwd, env });
    spawnSync('bash', ['-c', line], { cwd, env, stdio: 'ignore' });
    expect(existsSync(join(cwd, 'ran'))).toBe(true);
    expect((await analyze(line, { cwd, home: '/home/dev' })).commands.at(-1)!.argv).toEqual(['touch', 'ran']);
  });
});
