/**
 * fromSpec's shortcut (src/shell/file-arguments.ts) skips parsing the arguments of programs whose
 * role spec can name no file (`echo`, `ls`, `test`, …). It must be invisible: for random commands
 * of those programs and of programs that do open files, the analysis with the shortcut equals the
 * analysis without it, deep-equal.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createShellAnalyzer, type ShellAnalyzer, type ShellContext } from '../../src/shell/index.js';
import { withoutNoFileShortcut } from '../../src/shell/file-arguments.js';

const RUNS = Number(process.env.SHELL_PROPERTY_RUNS ?? 2000);
const TIMEOUT = Math.max(30_000, RUNS * 5);

/** Programs whose spec names no file, programs that open files by argument or option, and runners. */
const PROGRAMS = [
  'echo', 'printf', 'ls', 'test', '[', 'true', 'false', 'basename', 'dirname', 'which', 'type', 'pwd',
  'cat', 'head', 'sed', 'awk', 'cp', 'sort', 'grep', 'tee', 'git', 'xargs', 'find', 'env',
];
const ARGUMENTS = [
  '-n', '-e', '-l', '-a', '-R', '-o', 'out.txt', '-f', 'file', '.env', '~/.ssh/id_rsa', '/etc/passwd', '--', '-i', 's/a/b/w x',
  '*.txt', 'a=b', '--output=o', '--file=f', '$HOME', '$(cat .env)', '"$X"', "'q'", ']', '-r', '.', '..', 'x:y', '{a,b}',
];
const CONTEXTS: readonly ShellContext[] = [{ cwd: '/w', home: '/home/dev' }, { cwd: '/w', home: '/home/dev', cwdUnknown: true }];

const command = fc
  .tuple(fc.constantFrom(...PROGRAMS), fc.array(fc.constantFrom(...ARGUMENTS), { maxLength: 6 }))
  .map(([program, args]) => [program, ...args].join(' '));
const line = fc
  .tuple(command, fc.array(fc.tuple(fc.constantFrom(' && ', ' | ', '; ', ' || '), command), { maxLength: 2 }), fc.constantFrom('', ' > o', ' < i'))
  .map(([first, rest, tail]) => first + rest.map(([op, c]) => op + c).join('') + tail);

let analyzer: ShellAnalyzer;

beforeAll(async () => {
  // No cache: each side analyses the line itself.
  analyzer = await createShellAnalyzer({ cacheSize: 0 });
});

describe('file arguments: the no-file shortcut', () => {
  it('gives the same analysis as parsing every argument', () => {
    fc.assert(
      fc.property(line, (text) => {
        for (const context of CONTEXTS) {
          const slow = withoutNoFileShortcut(() => analyzer.analyze(text, context));
          expect(analyzer.analyze(text, context), JSON.stringify(text)).toEqual(slow);
        }
      }),
      { numRuns: RUNS },
    );
  }, TIMEOUT);

  it('is taken for a program whose spec names no file, and then nothing is recorded', () => {
    const analysis = analyzer.analyze('echo -n .env /etc/passwd --file=x', CONTEXTS[0]!);
    expect(analysis.redirections).toEqual([]);
    expect(analysis.unresolvable).toEqual([]);
  });
});
