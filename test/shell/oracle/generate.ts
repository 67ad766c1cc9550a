/**
 * fast-check arbitraries for shell lines, built from the grammar's constructs (lists, pipelines,
 * subshells, groups, redirects, parameter expansions with operators, command and process
 * substitutions, arithmetic, here-docs and here-strings, quoting, ANSI-C strings, brace expansion,
 * globs, assignments, for/while/case/if, functions, wrappers) and from the classes of issue 11.
 * Every line terminates quickly in the sandbox (loops only over finite lists or `read`).
 */
import fc from 'fast-check';

const PROGRAMS = ['echo', 'cat', 'ls', 'grep', 'git', 'rm', 'npm', 'printf', 'true', 'false', 'curl', 'sort', 'head', 'touch', 'wc', 'node', 'sed', 'make', 'cp', 'tee'];
const LITERALS = ['a', 'x', 'src/a.ts', '-n', '-rf', '/', '.env', 'status', 'push', '--force', 'origin', '+main', 'package.json', 'README.md', '-la', 'hooks/pre-commit', 'sub/notes.txt', '.git/config', '--', '-e', 'test', 'run',
  '--r', '--forc', '--mirr', '--ha', '--recursive'];
const TARGETS = ['out.txt', 'sub/out.txt', '.env', '.en[v]', '.en?', '*.md', 'src/*.ts', 'dangling', 'src/link/k', 'src/link/../y', 'hooks/pre-commit', '.git/hook[s]/pre-commit',
  '~/.bashrc', '$HOME/x', '"$HOME"/y', '/tmp/o', '/etc/passwd', 'envlink', 'homelink/.profile', '/dev/null', "'q t.txt'", 'sub/../z'];
const READ_TARGETS = ['.env', 'package.json', 'files.txt', 'src/a.ts', 'envlink', '~/.ssh/id_rsa', '.en[v]', 'src/link/id_rsa'];
const VARS = ['x', 'x', 'f', 'b', 'HOME', 'PWD', 'CDPATH', 'PATH', 'IFS', 'BASH_ENV', 'GIT_DIR', 'LD_PRELOAD'];
const PLAIN_VARS = ['x', 'f', 'b', 'n'];
const WRAPPERS = ['timeout 5', 'env A=1', 'nice -n 1', 'nohup', 'command', 'time', 'stdbuf -o0', 'setsid', 'env -C sub', 'ionice -c3', 'taskset 1', 'flock f', 'prlimit',
  'setpriv', 'busybox', 'chrt -o 0', 'builtin', 'exec', 'xargs', 'sudo', 'noglob', 'nice', 'timeout -s KILL 3', 'env -u x'];

/** Every recursive choice shares one depth budget, so lines stay a few constructs deep. */
const DEPTH = { maxDepth: 5, depthIdentifier: 'shell-line', withCrossShrink: true } as const;

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

function quoteSingle(text: string) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function lineArbitrary(): fc.Arbitrary<string> {
  const { line } = fc.letrec<{ line: string; list: string; pipeline: string; command: string; simple: string; word: string; compound: string }>((tie) => ({
    line: fc.oneof(
      DEPTH,
      tie('list'),
      tie('list'),
      fc.tuple(tie('list'), tie('list')).map(([a, b]) => `${a}\n${b}`),
      // A here-doc's body follows the line it is on: only the line's last command gets one.
      fc.tuple(tie('list'), pick(['&&', ';', '|']), pick(['cat', 'sort', 'bash', 'sh', 'grep x', 'tee out.txt']), pick(['EOF', "'EOF'", '"EOF"', '-EOF']), pick(['rm -rf /', '$(curl evil)', 'hello', '`id`', '\tls']))
        .map(([l, op, p, d, body]) => `${l} ${op} ${p} <<${d}\n${body}\nEOF`),
    ),
    list: fc.oneof(
      DEPTH,
      tie('pipeline'),
      fc.tuple(tie('pipeline'), pick(['&&', '||', ';', '&']), tie('list')).map(([a, op, b]) => `${a} ${op} ${b}`),
    ),
    pipeline: fc.oneof(DEPTH, tie('command'), tie('command'), fc.tuple(tie('command'), pick(['|', '|&']), tie('command')).map(([a, op, b]) => `${a} ${op} ${b}`)),
    command: fc.oneof(DEPTH, tie('simple'), tie('simple'), tie('simple'), tie('compound')),
    compound: fc.oneof(
      DEPTH,
      tie('list').map((l) => `( ${l} )`),
      tie('list').map((l) => `{ ${l}; }`),
      fc.tuple(tie('list'), tie('list'), tie('list')).map(([c, t, e]) => `if ${c}; then ${t}; else ${e}; fi`),
      fc.tuple(pick(VARS), fc.array(tie('word'), { minLength: 1, maxLength: 3 }), tie('list')).map(([v, ws, b]) => `for ${v} in ${ws.join(' ')}; do ${b}; done`),
      fc.tuple(pick(['l', 'x', 'IFS', 'PATH']), tie('list'), pick(READ_TARGETS.slice(0, 4))).map(([v, b, f]) => `while read -r ${v}; do ${b}; done < ${f}`),
      fc.tuple(tie('word'), tie('list'), tie('list')).map(([w, a, b]) => `case ${w} in a|x) ${a};; *) ${b};; esac`),
      fc.tuple(pick(['f', 'ls', 'git']), tie('list')).map(([n, b]) => `${n}() { ${b}; }; ${n} a`),
      tie('list').map((l) => `(( 1 + 2 )) && ${l}`),
      fc.tuple(tie('word'), tie('word')).map(([a, b]) => `[[ ${a} == ${b} ]]`),
      fc.tuple(pick(['p', 'CO']), tie('list')).map(([n, l]) => `coproc ${n} { ${l}; }`),
      fc.tuple(pick(WRAPPERS), tie('simple')).map(([w, s]) => `${w} ${s}`),
      fc.tuple(pick(['bash -c', 'sh -c', 'zsh -c', 'bash -lc', 'eval', 'script -qc']), tie('list')).map(([s, l]) => `${s} ${quoteSingle(l)}${s.startsWith('script') ? ' /dev/null' : ''}`),
      fc.tuple(pick(['EXIT', 'ERR', 'DEBUG']), tie('simple')).map(([sig, s]) => `trap ${quoteSingle(s)} ${sig}; true`),
      fc.tuple(pick(['printf -v', 'declare', 'export', 'readonly', 'local', 'typeset']), pick(VARS), tie('word'), tie('list'))
        .map(([d, v, w, l]) => (d === 'printf -v' ? `printf -v ${v} %s ${w}; ${l}` : `${d} ${v}=${w}; ${l}`)),
      fc.tuple(pick(['3>', '3>>', '4<']), pick(TARGETS), tie('simple')).map(([op, t, c]) => `exec ${op} ${t}; ${c} >&${op[0]}`),
      tie('pipeline').map((p) => `! ${p}`),
      tie('pipeline').map((p) => `time -p ${p}`),
      fc.tuple(tie('simple'), tie('list')).map(([c, l]) => `until true; do ${c}; done; ${l}`),
    ),
    simple: fc.tuple(
      fc.oneof(fc.constant([] as string[]), fc.constant([] as string[]), fc.tuple(pick(VARS), tie('word')).map(([v, w]) => [`${v}=${w}`])),
      pick(PROGRAMS),
      fc.array(tie('word'), { maxLength: 3, depthIdentifier: 'shell-line' }),
      fc.oneof(fc.constant([] as string[]), fc.array(redirect(tie('word')), { minLength: 1, maxLength: 2, depthIdentifier: 'shell-line' })),
    ).map(([assignments, program, args, redirects]) => [...assignments, program, ...args, ...redirects].join(' ')),
    word: fc.oneof(
      DEPTH,
      { weight: 6, arbitrary: pick(LITERALS) },
      { weight: 1, arbitrary: pick(LITERALS).map((w) => `'${w}'`) },
      { weight: 1, arbitrary: pick(LITERALS).map((w) => `"${w}"`) },
      { weight: 1, arbitrary: pick(["$'a\\tb'", "$'\\x2frm'", "$'/\\0x'", "$'\\x2e\\x65nv'", "$'-\\x72f'"]) },
      { weight: 1, arbitrary: pick(VARS).map((v) => `$${v}`) },
      { weight: 1, arbitrary: fc.tuple(pick(VARS), pick([':-', ':=', ':+', '-', '=', '+', '#', '%', '/', '^^', ':?']), pick(LITERALS)).map(([v, op, w]) => `\${${v}${op}${w}}`) },
      { weight: 1, arbitrary: fc.tuple(pick(VARS), pick([':-', ':=', '-', ':+']), tie('simple')).map(([v, op, s]) => `\${${v}${op}$(${s})}`) },
      { weight: 1, arbitrary: fc.tuple(pick(VARS), tie('simple')).map(([v, s]) => `\${${v}:-\`${s}\`}`) },
      { weight: 1, arbitrary: pick(['${#x}', '${x@P}', '${x@Q}', '${HOME:1:2}', '${!x}', '${x[0]}', '${HOME:$((1)):2}', '${PWD##*/}']) },
      { weight: 2, arbitrary: tie('list').map((l) => `$(${l})`) },
      { weight: 1, arbitrary: tie('simple').map((s) => `\`${s}\``) },
      { weight: 1, arbitrary: tie('simple').map((s) => `"$(${s})"`) },
      { weight: 1, arbitrary: pick(READ_TARGETS).map((f) => `$(< ${f})`) },
      { weight: 1, arbitrary: tie('simple').map((s) => `<(${s})`) },
      { weight: 1, arbitrary: pick(['$((1+2))', '$((x+1))', '$[1+1]', '$((a[0]))']) },
      { weight: 1, arbitrary: pick(['{a,b}', '-{r,f}', 'src/{a,b}.ts', '{1..3}', '{.e,x}nv']) },
      { weight: 1, arbitrary: pick(['*.ts', 'src/*', '.en?', '[.]env', '*', '~', '~/x', '~root', '*.json']) },
    ),
  }));
  return line;
}

function redirect(word: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(pick(['>', '>>', '2>', '&>', '>|', '1>', '&>>']), pick(TARGETS)).map(([op, t]) => `${op} ${t}`),
    fc.tuple(pick(['<', '<']), pick(READ_TARGETS)).map(([op, t]) => `${op} ${t}`),
    pick(['2>&1', '>&2', '2>/dev/null', '<&-']),
    word.map((w) => `<<< ${w}`),
    fc.tuple(pick(['>', '>>']), word).map(([op, w]) => `${op} ${w}`),
  );
}

/** The seed of this run: fixed unless ORACLE_SEED says otherwise. */
export const GENERATOR_SEED = Number(process.env.ORACLE_SEED ?? 20261101);
export const GENERATED_LINES = Number(process.env.ORACLE_LINES ?? 2000);

export function generateLines(count = GENERATED_LINES, seed = GENERATOR_SEED): string[] {
  return fc.sample(lineArbitrary(), { numRuns: count, seed });
}
