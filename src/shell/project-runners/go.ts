/**
 * go, an allowlist (from `go help build|test|testflag|vet` and cmd/go's source: testflag.go,
 * cmdflag/flag.go, flagdefs.go; go is not installed here): `go build|test|vet` with the flags that
 * choose none of what runs, is loaded or written, and `go version`. Flags are read as cmd/go reads
 * them: `-x` or `--x`, `=` or the next word (taken even when it starts with `-`) for flags with a
 * value, no abbreviations, flags after the packages too (`go test ./... -v`); test flags also as
 * `-test.x`. Words after `-args` (or `--`) go to the test binary: only its inert `-test.x` flags.
 * Packages: relative paths that never step up, or import paths. An import path names no directory
 * the line chose: without `-mod=mod` (refused, as are `-modfile`, `-overlay`, `GOFLAGS`) the go
 * command only loads packages of the modules go.mod already requires, or vendor/; `path@version`
 * is refused.
 */
import { leavesProject } from './project-paths.js';
import type { Check } from './options.js';

/** undefined: a boolean flag; else the check of its value (why it is refused, or undefined). */
type GoFlag = undefined | ((value: string) => string | undefined);
const BOOL: GoFlag = undefined;
const ANY: GoFlag = () => undefined;
const oneOf = (...values: string[]): GoFlag => (value) => (values.includes(value) ? undefined : `takes ${values.join('|')}`);
const packages: GoFlag = (value) => value.split(',').map((word) => packageHazard('', word)).find(Boolean);

/** `go help build`: the build flags that choose no code, tool, file or module source. */
const BUILD: ReadonlyMap<string, GoFlag> = new Map<string, GoFlag>([
  ['a', BOOL], ['n', BOOL], ['x', BOOL], ['work', BOOL], ['race', BOOL], ['trimpath', BOOL], ['cover', BOOL], ['buildvcs', BOOL],
  ['p', ANY], ['tags', ANY], ['mod', oneOf('readonly', 'vendor')], ['covermode', oneOf('set', 'count', 'atomic')], ['coverpkg', packages],
]);

/** Test flags that go test passes to the test binary as `-test.x`: none writes a file (profiles, -outputdir, -trace are left out). */
const TEST_BINARY: ReadonlyMap<string, GoFlag> = new Map<string, GoFlag>([
  ['v', BOOL], ['short', BOOL], ['failfast', BOOL], ['benchmem', BOOL], ['fullpath', BOOL],
  ['run', ANY], ['skip', ANY], ['bench', ANY], ['benchtime', ANY], ['count', ANY], ['cpu', ANY], ['parallel', ANY], ['timeout', ANY],
  ['list', ANY], ['shuffle', ANY], ['fuzz', ANY], ['fuzztime', ANY], ['fuzzminimizetime', ANY],
]);

/** vet's analyzers (`go tool vet help`), on or off: `-vet=` of go test takes the same names. */
const ANALYZERS = ['appends', 'asmdecl', 'assign', 'atomic', 'bool', 'bools', 'buildtag', 'buildtags', 'cgocall', 'composites', 'copylocks',
  'defers', 'directive', 'errorsas', 'framepointer', 'hostport', 'httpresponse', 'ifaceassert', 'loopclosure', 'lostcancel', 'methods',
  'nilfunc', 'printf', 'rangeloops', 'shift', 'sigchanyzer', 'slog', 'stdmethods', 'stdversion', 'stringintconv', 'structtag',
  'testinggoroutine', 'tests', 'timeformat', 'unmarshal', 'unreachable', 'unsafeptr', 'unusedresult', 'waitgroup'];
const vetList: GoFlag = (value) => (value.split(',').every((name) => ['off', 'all', ...ANALYZERS].includes(name)) ? undefined : 'takes off|all|analyzer names');

const SUBCOMMANDS: Readonly<Record<string, ReadonlyMap<string, GoFlag>>> = {
  build: new Map([...BUILD, ['v', BOOL], ['json', BOOL]]),
  vet: new Map([...BUILD, ['v', BOOL], ['json', BOOL], ['c', ANY], ...ANALYZERS.map((name): [string, GoFlag] => [name, BOOL])]),
  test: new Map([...BUILD, ...TEST_BINARY, ...[...TEST_BINARY].map(([name, flag]): [string, GoFlag] => [`test.${name}`, flag]), ['json', BOOL], ['vet', vetList]]),
};

/** Flags that run, load or write what the line chose (kept for their message). */
const GO_HAZARDS = new Set(['exec', 'toolexec', 'vettool', 'o', 'coverprofile', 'cpuprofile', 'memprofile', 'blockprofile', 'mutexprofile', 'trace', 'outputdir', 'modfile', 'overlay', 'pgo', 'c', 'ldflags', 'gccgoflags', 'compiler', 'asmflags', 'gcflags', 'fuzzcachedir', 'testlogfile', 'gocoverdir', 'C', 'pkgdir']);

export const go: Check = (args) => {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined) return undefined;
  if (subcommand === 'version') return rest.length === 0 ? undefined : 'go version: arguments the analysis does not model';
  const flags = SUBCOMMANDS[subcommand];
  if (!flags) return `go ${subcommand}: ${subcommand.startsWith('-') ? 'an option' : 'a subcommand'} the analysis does not model`;
  return readGoWords(subcommand, rest, flags);
};

function readGoWords(subcommand: string, args: readonly string[], flags: ReadonlyMap<string, GoFlag>): string | undefined {
  let sawPackages = false;
  let inPackages = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    if (word === '--') {
      const after = args.slice(index + 1);
      if (subcommand === 'test') return after.length === 0 ? undefined : `go test -- ${after[0]}: arguments to the test binary are not modelled`;
      return after.map((word) => packageHazard(subcommand, word)).find(Boolean);
    }
    const flag = goFlag(word);
    if (!flag) {
      if (subcommand === 'test' && sawPackages && !inPackages) return `go test ${word}: arguments to the test binary are not modelled`;
      const hazard = packageHazard(subcommand, word);
      if (hazard) return hazard;
      sawPackages = inPackages = true;
      continue;
    }
    inPackages = false;
    if (subcommand === 'test' && (flag.name === 'args')) return testBinaryWords(args.slice(index + 1));
    const step = readGoFlag(`go ${subcommand}`, flag, flags, args[index + 1]);
    if (typeof step === 'string') return step;
    index += step;
  }
  return undefined;
}

interface GoFlagWord { readonly name: string; readonly value: string | undefined }

/** cmd/go's ParseOne: `--x` is `-x`; `-`, `--x…` with a third dash and `-=…` are not flags. */
function goFlag(word: string): GoFlagWord | undefined {
  const arg = word.startsWith('--') ? word.slice(1) : word;
  if (arg.length < 2 || arg[0] !== '-' || arg[1] === '-' || arg[1] === '=') return undefined;
  const equals = arg.indexOf('=');
  return equals === -1 ? { name: arg.slice(1), value: undefined } : { name: arg.slice(1, equals), value: arg.slice(equals + 1) };
}

/** How many following words the flag took, or why it is refused. */
function readGoFlag(program: string, flag: GoFlagWord, flags: ReadonlyMap<string, GoFlag>, next: string | undefined): 0 | 1 | string {
  if (['h', 'help', '?'].includes(flag.name)) return 0;
  if (!flags.has(flag.name)) {
    const hazard = GO_HAZARDS.has(flag.name.replace(/^test\./, ''));
    return `${program} -${flag.name}: ${hazard ? 'runs, loads or writes what the line chose' : 'a flag the analysis does not know'}`;
  }
  const check = flags.get(flag.name);
  if (!check) return flag.value === undefined || ['true', 'false', '1', '0', 'test2json'].includes(flag.value) ? 0 : `${program} -${flag.name}=${flag.value}: not a boolean`;
  const value = flag.value ?? next;
  if (value === undefined) return 0;
  const why = check(value);
  if (why) return `${program} -${flag.name} ${value}: ${why}`;
  return flag.value === undefined ? 1 : 0;
}

const TEST_BINARY_FLAGS = new Map([...TEST_BINARY].map(([name, flag]): [string, GoFlag] => [`test.${name}`, flag]));

/** After `-args`: the test binary's flag package reads `-test.x`; a project's own flags and arguments are not modelled. */
function testBinaryWords(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const flag = goFlag(args[index]!);
    if (!flag) return `go test -args ${args[index]}: arguments to the test binary are not modelled`;
    const step = readGoFlag('go test -args', flag, TEST_BINARY_FLAGS, args[index + 1]);
    if (typeof step === 'string') return step;
    index += step;
  }
  return undefined;
}

/** Why a package argument is refused: a directory outside the project, a module version, or not a pattern. */
function packageHazard(subcommand: string, word: string): string | undefined {
  const program = subcommand ? `go ${subcommand}` : 'go';
  if (word.includes('@')) return `${program} ${word}: a module version the line chose`;
  if (leavesProject(word)) return `${program} ${word}: packages outside the project`;
  return /^[A-Za-z0-9_.][A-Za-z0-9_.~+/-]*$/.test(word) ? undefined : `${program} ${word}: not a package pattern the analysis models`;
}
