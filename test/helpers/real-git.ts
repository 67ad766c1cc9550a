import { execFileSync } from 'node:child_process';

/** git for building fixtures only: no user or system config, a fixed identity, `home` as HOME. */
export function fixtureGit(home: string, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' },
  }).trim();
}

/** What a shell line prints when real git runs it in `cwd` (errors included), `home` as HOME. */
export function printedByRealGit(home: string, cwd: string, line: string): string {
  try {
    return execFileSync('bash', ['-c', `${line} 2>&1`], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_PAGER: 'cat' } });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? '');
  }
}
