/**
 * The plain-line fast path (src/shell/plain-line.ts) must be invisible: for every line, the
 * analysis with it equals the analysis by tree-sitter alone, deep-equal. Checked on random lines of
 * the fast path's alphabet (words, wrappers, cd, keywords, the four operators, blanks) and on
 * random lines mixing in every character it must refuse.
 *
 * SHELL_PROPERTY_RUNS scales the number of runs (default below).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createShellAnalyzer, type ShellAnalyzer, type ShellContext } from '../../src/shell/index.js';
import { loadBashParser, type BashParser } from '../../src/shell/parser.js';
import { liftListsOutOfPipelines } from '../../src/shell/pipeline-lists.js';
import { parsePlainLine } from '../../src/shell/plain-line.js';
import type { SyntaxNode } from '../../src/shell/syntax.js';
import { expandWord, resolveWord } from '../../src/shell/words.js';

const RUNS = Number(process.env.SHELL_PROPERTY_RUNS ?? 4000);
/** Per property test: generous, so that large SHELL_PROPERTY_RUNS values do not time out. */
const TIMEOUT = Math.max(30_000, RUNS * 5);
const CONTEXTS: ShellContext[] = [
  { cwd: '/w', home: '/home/dev' },
  { cwd: '/', home: '/root' },
];

/** Every character the fast path may accept in a word. */
const WORD_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-'];
const BLANKS = [' ', ' ', ' ', '  ', '\t', ' \t '];
const OPERATORS = ['&&', '||', '|', ';'];

const PROGRAMS = [
  'npm', 'git', 'ls', 'rm', 'cat', 'echo', 'head', 'grep', 'node', 'make', 'curl', 'tee', 'cp', 'mv', 'dd', 'sort', 'chmod',
  'true', 'false', ':', '.', 'test', 'let', 'read', 'printf', 'eval', 'source', 'alias', 'trap', 'exit', 'return', 'bash', 'sh',
  'zsh', 'su', 'watch', 'find', 'cd', 'pushd', 'popd', 'dirs', 'exec', 'command', 'builtin', 'getopts', 'mapfile', 'wait', 'kill',
  'fg', 'bg', 'jobs', 'shift', 'set', 'shopt', 'hash', 'type', 'ulimit', 'umask', 'enable', 'caller', 'disown', 'break', 'continue',
  '/usr/bin/git', './git', 'tools/npm', '../x', '-x', '%1', '@x', '+x', '1', '42', '-1', 'a,b', 'a:b', 'a.b', '_',
];
const KEYWORDS = [
  'if', 'then', 'elif', 'else', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time',
  'coproc', 'declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv', 'nameref',
];
const WRAPPERS = [
  'sudo', 'sudo -u root', 'sudo -E', 'sudo -D /tmp', 'sudo X=1', 'doas', 'pkexec', 'env', 'env X=1', 'env -i', 'env -u X',
  'env -C sub', 'env PATH=/x', 'env LD_PRELOAD=x.so', 'timeout 5', 'timeout -s KILL 5', 'timeout', 'nice', 'nice -n 10', 'nohup',
  'xargs', 'xargs -n 1', 'xargs -0', 'xargs -I X', 'command', 'command -v', 'builtin', 'exec', 'exec -a x', 'time', 'time -p',
  'stdbuf -o0', 'ionice -c 3', 'setsid', 'watch', 'watch -n 1', 'find . -exec', 'find / -delete', 'coproc', 'X=1', 'git -c',
  'bash', 'sh -c', 'bash -lc', 'su -c', 'eval', 'trap',
];
const ARGUMENTS = [
  'status', 'test', 'run', 'lint', 'push', '--force', '-f', '-rf', '-r', '-fr', '--recursive', '-c', '-C', '-o', 'out.txt',
  '--output=log.txt', '-O', 'of=/dev/sda', 'if=x', '5', '10', '0', '-n', '/', '/tmp', '/etc/passwd', '..', '.', 'sub', 'sub/dir',
  '-', '--', 'a=b', 'X=1', 'PATH=/x', 'HOME=/x', 'HOME', 'core.pager=less', 'core.editor=vi', '-exec', '-execdir', '-delete',
  '-name', '-print', '-fprint', 'f.txt', '-v', '-p', '-a', 'origin', 'main', '+main', '%1', '@{u}'.replace(/[{}]/g, ''), 'a,b',
  'a:b', '-e', '-u', 'root', '-i', '-s', 'KILL', 'x.so', '--help', '-h', '-l', '-lc', '-d', 'a.b.c', '-1', '1e5', '0x1f',
  ...KEYWORDS,
];

const randomWord = fc.array(fc.constantFrom(...WORD_CHARS), { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));
const argument = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ARGUMENTS) }, { weight: 1, arbitrary: randomWord });
const commandName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PROGRAMS) },
  { weight: 1, arbitrary: fc.constantFrom(...KEYWORDS) },
  { weight: 1, arbitrary: randomWord },
);
/** Words of one simple command: optional wrappers, a name, arguments. */
const commandWords = fc
  .tuple(fc.array(fc.constantFrom(...WRAPPERS), { maxLength: 3 }), commandName, fc.array(argument, { maxLength: 5 }))
  .map(([wrappers, name, args]) => [...wrappers.flatMap((w) => w.split(' ')), name, ...args]);
const blank = fc.constantFrom(...BLANKS);
const maybeBlank = fc.oneof(fc.constant(''), blank);

/** A line of the fast path's alphabet; mostly well-formed, sometimes with stray operators. */
const plainLine = fc
  .tuple(
    maybeBlank,
    commandWords,
    fc.array(fc.tuple(maybeBlank, fc.constantFrom(...OPERATORS), maybeBlank, commandWords), { maxLength: 5 }),
    fc.constantFrom('', '', '', ';', ' ;', ' &&', '|', ';;', ' ', '\t'),
    fc.array(blank, { minLength: 40, maxLength: 40 }),
  )
  .map(([lead, first, rest, tail, blanks]) => {
    let b = 0;
    const join = (words: readonly string[]) => words.map((word, i) => (i === 0 ? word : blanks[b++ % blanks.length]! + word)).join('');
    return lead + join(first) + rest.map(([before, operator, after, words]) => before + operator + (after || ' ') + join(words)).join('') + tail;
  });

/** Characters the fast path must refuse (or that sit next to its operators), mixed into plain lines. */
const HOSTILE = [
  '&', '&&', '|&', ';;', ';&', '\n', '\r', '#', ' #', '~', '~/', '!', '^', '{', '}', '{a,b}', '*', '?', '[', ']', '$', '$X', '$(', ')',
  '(', '`', "'", '"', '\\', '<', '>', '>>', '2>', '=', 'é', 'с', '\u00a0', '\u200b', '\x01', '\x7f', '\v', '\f',
];
const mixedLine = fc
  .tuple(plainLine, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...HOSTILE)), { minLength: 1, maxLength: 3 }))
  .map(([line, inserts]) => {
    let text = line;
    for (const [at, piece] of inserts) {
      const position = at % (text.length + 1);
      text = text.slice(0, position) + piece + text.slice(position);
    }
    return text;
  });

let fast: ShellAnalyzer;
let slow: ShellAnalyzer;
let bash: BashParser;

beforeAll(async () => {
  fast = await createShellAnalyzer({ cacheSize: 0 });
  slow = await createShellAnalyzer({ cacheSize: 0, fastPath: false });
  bash = await loadBashParser();
});

function sameAnalysis(line: string): void {
  for (const context of CONTEXTS) {
    expect(fast.analyze(line, context), JSON.stringify(line)).toEqual(slow.analyze(line, context));
  }
}

/** The tree-sitter tree as the walker sees it; a `number` argument is a word for it (same segments). */
function shape(node: SyntaxNode): unknown {
  return {
    type: node.type === 'number' ? 'word' : node.type,
    field: node.field,
    named: node.named,
    missing: node.missing,
    start: node.start,
    end: node.end,
    text: node.text,
    children: node.children.map(shape),
  };
}

describe('plain-line fast path: equal to the parser', () => {
  it('gives the same analysis as tree-sitter on random plain lines (wrappers, cd, keywords, operators)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(plainLine, (line) => {
        if (parsePlainLine(line)) accepted++;
        sameAnalysis(line);
      }),
      { numRuns: RUNS },
    );
    // The generator must exercise the fast path, not only the fallback.
    expect(accepted).toBeGreaterThan(RUNS * 0.4);
  }, TIMEOUT);

  it('builds the tree tree-sitter builds (after the pipeline-list repair), whenever it accepts a line', () => {
    fc.assert(
      fc.property(plainLine, (line) => {
        const tree = parsePlainLine(line);
        if (!tree) return;
        const parsed = liftListsOutOfPipelines(bash.parse(line)!);
        expect(tree.type).toBe('program');
        expect(tree.children.map(shape), JSON.stringify(line)).toEqual(parsed.children.map(shape));
      }),
      { numRuns: RUNS },
    );
  }, TIMEOUT);

  it('gives the same analysis on plain lines with characters it must refuse mixed in', () => {
    fc.assert(fc.property(mixedLine, sameAnalysis), { numRuns: RUNS });
  }, TIMEOUT);

  it('gives the same analysis on arbitrary short ASCII strings', () => {
    const ascii = fc.array(fc.constantFrom(...WORD_CHARS, ...BLANKS, ...OPERATORS, '&', '\n', '#', '~', '!', '*', '$', "'", '"', '\\', '(', ')', '{', '}', '<', '>'), { maxLength: 24 }).map((parts) => parts.join(''));
    fc.assert(fc.property(ascii, sameAnalysis), { numRuns: RUNS });
  }, TIMEOUT);
});

describe('plain-line fast path: what it accepts', () => {
  it.each([
    'npm test',
    'npm test && git status | head',
    'cd /w && npm run lint; git diff --stat || true',
    'sudo -u root timeout 5 env X=1 rm -rf /tmp/x',
    'a | b | c && d || e ; f;',
    '\tgit  log\t-1 ',
    'git push origin +main --force-with-lease=main:abc',
  ])('accepts %j', (line) => {
    expect(parsePlainLine(line)).toBeDefined();
    sameAnalysis(line);
  });

  it.each([
    '', '   ', ';', 'a;;', 'a ;; b', 'a |& b', 'a & b', 'a &', '&& a', 'a &&', 'a | | b', 'a || || b', 'a &&& b', '; a', 'a; ;',
    'X=1 a', 'a=b', 'PATH=/x git status', 'if a', 'time a', 'export A=b', 'local x', 'unset x', 'declare -x a',
    'echo $HOME', 'echo ~', 'echo a#b', 'echo #c', 'echo !x', 'echo {a,b}', 'echo *', 'echo a?', 'echo [a]', 'a\nb', 'a\\ b',
    "echo 'x'", 'echo "x"', 'echo `x`', 'echo (x)', 'a > f', 'a < f', 'echo ^x', 'echo é', 'echo\u00a0x', 'a\rb',
  ])('hands %j to the parser', (line) => {
    expect(parsePlainLine(line)).toBeUndefined();
    sameAnalysis(line);
  });
});

describe('inert words', () => {
  it('a word of the plain alphabet expands to itself, as the general word expansion finds', () => {
    const leaf = (type: string, text: string, children: SyntaxNode[] = []): SyntaxNode => ({
      type, field: null, named: true, missing: false, start: 0, end: text.length, text, children, source: text,
    });
    const context = { home: '/home/dev', homeIsReliable: true };
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WORD_CHARS), { minLength: 1, maxLength: 12 }).map((chars) => chars.join('')), (text) => {
        const word = leaf('word', text);
        const expected = { words: [resolveWord(word, context)] }; // resolveWord has no shortcut; no `{` here, so no brace expansion
        expect(expandWord(word, context)).toEqual(expected);
        expect(expandWord(leaf('command_name', text, [word]), context)).toEqual(expected);
        expect(expected.words[0]).toEqual({ text, dynamic: false, glob: false, tildeUnresolved: false, history: false });
      }),
      { numRuns: RUNS },
    );
  });
});
