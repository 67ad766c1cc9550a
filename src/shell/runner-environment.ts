/**
 * Variables a line sets that may reach a project runner's environment. A policy that allows `npm
 * test` trusts the project's files, and those may run or load what a variable names (`"test": "$X
 * vitest"`, a Makefile's `$(X)`, a conftest.py reading os.environ, a build.rs): so a line that runs a
 * project runner and sets any variable not on the inert allowlist (inert-variables.ts) is unresolvable.
 *
 * The whole line counts, wherever the variable is set: a prefix (`X=id npm test`, `env X=id npm test`,
 * `X=id bash -c 'npm test'`), an export before or after (`export X=id; npm test`, a loop runs it again),
 * and a plain `X=id` or `read X` too, since X may already be exported by the environment the line runs
 * in (bash then passes the new value on). `set -a` / `-o allexport` export every later assignment and
 * function, `set -k` / `-o keyword` turn `npm test X=id` into an assignment: with either, nothing is inert.
 */
import { nameArguments, assignedName, type NameWord } from './hazards.js';
import { INERT_VARIABLE_NAMES, isInertVariable } from './inert-variables.js';
import { isProjectRunner } from './project-runners.js';

/** A value that is one plain word: a makefile pastes `$(CI)` into its recipes' shell code, so `CI='x;id'` would run id. */
const PLAIN_VALUE = /^[A-Za-z0-9_.,:@%+=/-]*$/;

/** `'v'` / `"v"` without expansions or escapes inside → v; anything else as written. */
function unquoted(value: string): string {
  const match = /^(['"])([^'"$`\\]*)\1$/.exec(value);
  return match ? match[2]! : value;
}

/**
 * Inert for a runner: on the allowlist, with a plain value. `value` null: the line names the variable
 * without giving a value (`export CI`, `unset CI`): it keeps what the environment gave it, or loses it.
 * undefined: a value known only at run time.
 */
function isInertForRunner(name: string, value: string | null | undefined): boolean {
  if (value === null) return INERT_VARIABLE_NAMES.includes(name);
  if (value === undefined) return false;
  const plain = unquoted(value);
  return PLAIN_VALUE.test(plain) && isInertVariable(name, plain);
}

/** Builtins that set a variable without naming it: `read` → REPLY, `mapfile` → MAPFILE, `getopts` → OPTARG, OPTIND. */
const IMPLICIT_NAMES: Readonly<Record<string, readonly string[]>> = { read: ['REPLY'], mapfile: ['MAPFILE'], readarray: ['MAPFILE'], getopts: ['OPTARG', 'OPTIND'] };
const DECLARATIONS: ReadonlySet<string> = new Set(['declare', 'typeset', 'local', 'export', 'readonly', 'unset']);

/** `shopt -s|-o NAME`, `set -o NAME`, `bash -o NAME`: the options that export what the line sets. */
const EXPORTING_OPTION_NAMES: ReadonlySet<string> = new Set(['allexport', 'keyword']);

/**
 * Why `program argv` makes bash export assignments it would not (`set -a`, `set -k`, `shopt -so
 * allexport`, `bash -a -c …`), or undefined. `shell`: argv is a shell's, whose options end at its first
 * operand. A word known only at run time may be either.
 */
function exportingOption(program: string, argv: readonly NameWord[], shell: boolean): string | undefined {
  if (!shell && program !== 'set' && program !== 'shopt') return undefined;
  for (const word of argv.slice(1)) {
    const text = word.text;
    if (word.dynamic || word.fromVariable) return `${program} with an option known only at run time (${text}) may export every variable`;
    if (EXPORTING_OPTION_NAMES.has(text)) return `${program} … ${text} exports variables the line sets`;
    if (text === '--' || (shell && !/^[-+]/.test(text))) return undefined;
    if (program !== 'shopt' && /^-[A-Za-z]*[ak]/.test(text)) return `${program} ${text}: -a exports every variable the line sets, -k every NAME=value argument`;
  }
  return undefined;
}

/** A variable the line sets: `value` as in isInertForRunner. */
interface SetVariable {
  readonly name: string;
  readonly value: string | null | undefined;
}

/** The variables set and exporting options seen in one line; asked at the end, when all its commands are known. */
export class RunnerEnvironment {
  /** Created at the first variable (most lines set none). */
  private variables: SetVariable[] | undefined;
  private exporting: string | undefined;

  /** `NAME=value` / `NAME+=value` as written (a statement, a prefix, `env NAME=value`). */
  noteAssignment(text: string): void {
    const name = assignedName(text);
    if (name === undefined) return;
    const value = text.slice(text.indexOf('=') + 1);
    // `X+=v` appends to what may already be there: its whole value is not known.
    (this.variables ??= []).push({ name, value: text[text.indexOf('=') - 1] === '+' ? undefined : value });
  }

  /** A variable set to a value known only at run time (`for X in`, `${X:=v}`, `read X`). */
  noteRunTimeValue(name: string): void {
    (this.variables ??= []).push({ name, value: undefined });
  }

  /** `for NAME in …` / `select NAME in …` (select sets REPLY too). */
  noteLoopVariable(name: string, select: boolean): void {
    this.noteRunTimeValue(name);
    if (select) this.noteRunTimeValue('REPLY');
  }

  /** What `program argv` sets (declarations, read, printf -v …) and whether it turns exporting on. */
  noteCommand(program: string, argv: readonly NameWord[]): void {
    this.exporting ??= exportingOption(program, argv, false);
    const implicit = IMPLICIT_NAMES[program];
    const names = nameArguments(program, argv);
    if (names === undefined || names === 'unsafe') return; // unsafe: unresolvable already (hazards.ts)
    if (DECLARATIONS.has(program)) {
      // Names are touched even when printing or with -f (`export -f vitest` exports a function).
      for (const word of names.names) {
        if (word.dynamic || word.fromVariable) this.noteRunTimeValue(word.text.split('=', 1)[0]!);
        else if (word.text.includes('=')) this.noteAssignment(word.text);
        else (this.variables ??= []).push({ name: word.text, value: null });
      }
      return;
    }
    if (!names.assigns) return;
    for (const word of names.names) this.noteRunTimeValue(word.text.split('=', 1)[0]!);
    if (implicit && (program === 'getopts' || names.names.length === 0)) for (const name of implicit) this.noteRunTimeValue(name);
  }

  /** A shell started with `-a`/`-k`/`-o allexport` (`bash -a -c 'npm test'`). */
  noteShell(program: string, argv: readonly NameWord[]): void {
    this.exporting ??= exportingOption(program, argv, true);
  }

  /** Why the line cannot be resolved, given the programs it runs; empty when it runs no project runner. */
  problems(commands: readonly { readonly program: string }[]): string[] {
    if (this.variables === undefined && this.exporting === undefined) return [];
    const runner = commands.find((command) => isProjectRunner(command.program))?.program;
    if (runner === undefined) return [];
    const found: string[] = [];
    if (this.exporting) found.push(`${runner} runs in a line where ${this.exporting}`);
    const names = new Set((this.variables ?? []).filter((variable) => !isInertForRunner(variable.name, variable.value)).map((variable) => variable.name));
    for (const name of names) {
      found.push(INERT_VARIABLE_NAMES.includes(name)
        ? `${runner} runs in a line that sets ${name} to a value that may name a file or carry shell code, or is known only at run time`
        : `${runner} runs in a line that sets ${name}, not a known inert variable: a project's scripts may run or load what a variable names`);
    }
    return found;
  }
}
