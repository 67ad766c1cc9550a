/**
 * The oracle's own parts without the sandbox: strace output is split per line and read correctly,
 * the comparison's notion of "among the reported" holds, and the known-gaps rules are enforced.
 */
import { describe, expect, it } from 'vitest';
import type { CommandAnalysis, SimpleCommand } from '../../../src/shell/index.js';
import { compare, execCovered } from './compare.js';
import { judge } from './gaps.js';
import { physical } from './seed.js';
import { parseTrace, splitBatchTrace } from './trace.js';

const hex = (s: string) => `"${[...Buffer.from(s, 'latin1')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}"`;
const fd = (s: string) => `<${hex(s).slice(1, -1)}>`;
const argv = (...words: string[]) => `[${words.map(hex).join(', ')}]`;
const command = (argv: string[], extra: Partial<SimpleCommand> = {}): SimpleCommand => ({
  argv, program: argv[0]!, cwd: '/w', assignments: [], wrappers: [], text: argv.join(' '), ...extra,
});

const BATCH = [
  `10 execve(${hex('/usr/bin/bash')}, ${argv('/usr/bin/bash', '-c', 'ls | rm x', 'oracle-line-0')}, []) = 0`,
  `10 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>`,
  `11 execve(${hex('/usr/bin/rm')}, ${argv('rm', 'x')}, []) = 0`,
  `10 <... clone resumed>) = 11`,
  `11 openat(AT_FDCWD${fd('/w')}, ${hex('out.txt')}, O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3${fd('/w/out.txt')}`,
  `20 execve(${hex('/usr/bin/bash')}, ${argv('/usr/bin/bash', '-c', 'nope a', 'oracle-line-1')}, []) = 0`,
  `20 execve(${hex('/oracle/nf')}, ${argv('/oracle/nf', 'nope', 'a')}, []) = 0`,
  `20 openat(AT_FDCWD${fd('/w/src')}, ${hex('link/k')}, O_WRONLY|O_CREAT, 0666) = -1 EROFS (Read-only file system)`,
  `20 openat(AT_FDCWD${fd('/w')}, ${hex('.')}, O_RDONLY|O_DIRECTORY) = 3${fd('/w')}`,
  `20 openat(AT_FDCWD${fd('/w')}, ${hex('.env')}, O_RDONLY) = 3${fd('/w/.env')}`,
  `20 renameat2(AT_FDCWD${fd('/w')}, ${hex('a')}, AT_FDCWD${fd('/w')}, ${hex('b')}, 0) = 0`,
  `99 execve(${hex('/oracle/bin/cp')}, ${argv('cp', '-a')}, []) = 0`,
].join('\n');

describe('oracle parts', () => {
  it('splits a batch trace by process tree, joins unfinished calls and reads execs, writes and reads', () => {
    const [first, second] = splitBatchTrace(BATCH, 2).map(parseTrace);
    expect(first).toEqual({ execs: [['rm', 'x']], writes: [{ path: '/w/out.txt', named: '/w/out.txt' }], reads: [] });
    expect(second!.execs).toEqual([['nope', 'a']]);
    expect(second!.writes.map((w) => w.path)).toEqual(['/home/dev/.ssh/k', '/w/a', '/w/b']);
    expect(second!.reads.map((r) => r.path)).toEqual(['/w/.env']);
  });

  it('resolves paths like the kernel over the seed', () => {
    expect(physical('/w/src/link/../y')).toBe('/home/dev/y');
    expect(physical('dangling', '/w')).toBe('/home/dev/.ssh/authorized_keys');
    expect(physical('/w/hooks/pre-commit')).toBe('/w/.git/hooks/pre-commit');
    expect(physical('/w/sub/../.env')).toBe('/w/.env');
  });

  it('counts an exec as reported only word for word, with run-time words, wrappers and globs as documented', () => {
    expect(execCovered(['rm', '-rf', 'x'], [command(['rm', '-rf', 'x'])])).toBe(true);
    expect(execCovered(['rm', '-rf', '/'], [command(['rm', '-rf', 'x'])])).toBe(false);
    expect(execCovered(['/bin/rm', 'x'], [command(['rm', 'x'])])).toBe(true);
    expect(execCovered(['rm', 'a', 'b'], [command(['rm', '$X'], { dynamicArguments: true })])).toBe(true);
    expect(execCovered(['rm', 'a', 'b'], [command(['rm', '$X'])])).toBe(false);
    expect(execCovered(['cat', 'a.ts', 'b.ts'], [command(['cat', '*.ts'])])).toBe(true);
    expect(execCovered(['cat', 'a.js'], [command(['cat', '*.ts'])])).toBe(false);
    expect(execCovered(['timeout', '5', 'x'], [command(['x'], { wrappers: ['timeout'] })])).toBe(true);
    expect(execCovered(['nice', 'x'], [command(['x'], { wrappers: ['timeout'] })])).toBe(false);
    expect(execCovered(['rm', 'a', 'b'], [command(['rm'], { wrappers: ['xargs'], dynamicArguments: true })])).toBe(true);
    expect(execCovered(['git', '/dev/fd/63'], [command(['git', '<(ls)'])])).toBe(true);
  });

  it('counts a write as reported when the kernel path or the glob matches', () => {
    const analysis = (path: string, glob = false): CommandAnalysis => ({ commands: [], unresolvable: [], redirections: [{ path, access: 'write', operator: '>', glob }] });
    const observed = (path: string, named = path) => ({ execs: [], reads: [], writes: [{ path, named }] });
    expect(compare(analysis('/w/dangling'), observed('/home/dev/.ssh/authorized_keys', '/w/dangling'))).toEqual([]);
    expect(compare(analysis('/w/src/y'), observed('/home/dev/y', '/w/src/link/../y'))).toEqual([{ kind: 'write', what: '/home/dev/y' }]);
    expect(compare(analysis('/w/.en[v]', true), observed('/w/.env'))).toEqual([]);
    expect(compare(analysis('/w/.en[x]', true), observed('/w/.env'))).toEqual([{ kind: 'write', what: '/w/.env' }]);
  });

  it('known gaps: a listed failure is tolerated, a listed pass fails, an unlisted failure fails', () => {
    const gaps = [{ check: 'c', line: 'still', class: 1 as const }, { check: 'c', line: 'fixed', class: 2 as const }];
    const result = judge('c', ['still', 'fixed', 'new', 'fine'], new Map([['still', 'still fails'], ['new', 'new fails']]), () => 'generated', gaps);
    expect(result.tolerated).toEqual(['still fails']);
    expect(result.unlisted).toEqual(['new fails']);
    expect(result.fixed).toEqual(['c: "fixed" passes now: remove it from known-gaps.yaml']);
  });
});
