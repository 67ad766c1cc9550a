import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sharedAnalyzer } from './helpers.js';

const CONTEXT = { cwd: '/w', home: '/home/dev' };
const PROGRAMS = ['ls', 'git', 'npm', 'echo', 'cat', 'grep', 'rm', 'make', 'node', 'wc'];
const WORDS = [...PROGRAMS, 'status', 'test', 'a', 'b.txt', '-x', '--yes', '-rf', 'src/x.ts', '42', '/tmp', '.'];
const OPERATORS = ['&&', '||', ';', '|', '\n'];

// `make -rf X` reads the makefile X, `make -x` and `make --yes` are options make does not have, and
// `make /tmp` is a target outside the project (a rule would write it): all are rightly unresolvable
// (project-runners/make.ts), so make gets none of them here. Neither does npm get `-x` or `-rf`
// (options it does not know are not allowed), nor `b.txt` or `/tmp`, which a script may be given
// (`npm a b.txt`: node --test would run b.txt).
const NOT_FOR: Readonly<Record<string, readonly string[]>> = { make: ['-rf', '-x', '--yes', '/tmp'], npm: ['-rf', '-x', 'b.txt', '/tmp'] };
const simpleCommand = fc.tuple(fc.constantFrom(...PROGRAMS), fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }))
  .filter(([program, args]) => !args.some((word) => NOT_FOR[program]?.includes(word)))
  .map(([program, args]) => [program, ...args]);
const plainLine = fc.tuple(simpleCommand, fc.array(fc.tuple(fc.constantFrom(...OPERATORS), simpleCommand), { maxLength: 6 }));

describe('property: plain word sequences', () => {
  it('every plain command appears, in order, with nothing unresolvable', async () => {
    const analyzer = await sharedAnalyzer();
    fc.assert(
      fc.property(plainLine, ([first, rest]) => {
        const commands = [first, ...rest.map(([, command]) => command)];
        const line = [first.join(' '), ...rest.map(([operator, command]) => `${operator === '\n' ? '\n' : ` ${operator} `}${command.join(' ')}`)].join('');
        const analysis = analyzer.analyze(line, CONTEXT);
        expect(analysis.commands.map((command) => command.argv)).toEqual(commands);
        expect(analysis.unresolvable).toEqual([]);
        // No shell redirect; files opened through arguments (operator = the program) are reported.
        expect(analysis.redirections.filter((redirection) => /^[<>&|]+$/.test(redirection.operator))).toEqual([]);
      }),
      { numRuns: Number(process.env.SHELL_PROPERTY_RUNS ?? 500) },
    );
  });
});

describe('property: quoting, comments, continuations and separators do not change the commands', () => {
  const SEPARATORS = [' && ', ' || ', '; ', ' | ', ' |& ', ' & ', '\n', '\n\n', ' # note\n', ' \\\n  && ', ';\n', '\n# comment line\n'];
  const quoted = (word: string) => fc.constantFrom(word, `'${word}'`, `"${word}"`, `\\${word}`);
  const command = simpleCommand.chain((words) => fc.tuple(...words.map(quoted)).map((written) => ({ words, written })));
  const line = fc.tuple(command, fc.array(fc.tuple(fc.constantFrom(...SEPARATORS), command), { maxLength: 6 }));

  it('gives the same argv for every formatting', async () => {
    const analyzer = await sharedAnalyzer();
    fc.assert(
      fc.property(line, ([first, rest]) => {
        const text = first.written.join(' ') + rest.map(([separator, next]) => separator + next.written.join(' ')).join('');
        const analysis = analyzer.analyze(text, CONTEXT);
        expect(analysis.commands.map((c) => c.argv)).toEqual([first.words, ...rest.map(([, next]) => next.words)]);
        expect(analysis.unresolvable).toEqual([]);
      }),
      { numRuns: Number(process.env.SHELL_PROPERTY_RUNS ?? 500) },
    );
  });
});

describe('property: never throws, always answers', () => {
  const SHELLISH = [...WORDS, ...OPERATORS, ' ', '"', "'", '`', '$', '$(', '(', ')', '{', '}', '<', '>', '>>', '2>&1', '<<', 'EOF', '\\', '*', '~', '!', '=', 'X=1', '#', '&', '[[', ']]', 'if', 'then', 'fi', 'for', 'do', 'done', 'bash -c', 'sudo', 'xargs', 'find', '-exec', '\\;', 'cd', '..', '$\'\\x41\'', '{a,b}', '\u200b', 'с'];
  const shellish = fc.array(fc.constantFrom(...SHELLISH), { maxLength: 40 }).map((parts) => parts.join(''));

  it('on shell-like noise', async () => {
    const analyzer = await sharedAnalyzer();
    fc.assert(
      fc.property(shellish, (line) => {
        const analysis = analyzer.analyze(line, CONTEXT);
        expect(Array.isArray(analysis.commands)).toBe(true);
        expect(Array.isArray(analysis.unresolvable)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('on arbitrary unicode strings', async () => {
    const analyzer = await sharedAnalyzer();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 200 }), (a, b) => {
        expect(() => analyzer.analyze(a + b, CONTEXT)).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });

  it('on pathological nesting and long inputs, in bounded time', async () => {
    const analyzer = await sharedAnalyzer();
    const lines = [
      '('.repeat(5000),
      `${'$('.repeat(3000)}x${')'.repeat(3000)}`,
      `${'"$('.repeat(2000)}`,
      `${'{ '.repeat(3000)}x`,
      `echo ${'{a,b}'.repeat(20)}`,
      `${'a && '.repeat(2400)}b`,
      `${'`'.repeat(9999)}`,
      `bash -c "${'bash -c \\"'.repeat(50)}"`,
      `echo $((${'('.repeat(4000)}1${')'.repeat(4000)}))`,
      `echo "${'${a:-"'.repeat(1500)}`,
      `${'if a; then '.repeat(800)}b`,
      'x'.repeat(20000),
    ];
    for (const line of lines) {
      const started = performance.now();
      expect(() => analyzer.analyze(line, CONTEXT)).not.toThrow();
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });
});
