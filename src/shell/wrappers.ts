/**
 * Commands that run another command given in their arguments (`sudo rm …`, `timeout 5 npm test`,
 * `xargs rm`, `flock f -c CODE`, `ssh host CMD`). Peeling one gives the inner argv or shell code,
 * so rules for the inner command still match. Grammars: wrapper-table.ts, runner-table.ts, and
 * runner-parsers.ts for those no table describes.
 *
 * Reporting: a wrapper that changes privilege, host or root (sudo, chroot, ssh, docker exec …) is
 * also reported as a command of its own (full argv), so a rule can deny it as such; the others are
 * transparent and only listed in `SimpleCommand.wrappers`. A wrapper with no inner command is
 * reported as itself. An option we do not know makes the line unresolvable: guessing whether it
 * takes a value could make us analyse the wrong word as the command.
 */
import { assignedName } from './hazards.js';
import { RUNNERS } from './runner-table.js';
import { customRunner } from './runner-parsers.js';
import { CLASSIC_WRAPPERS } from './wrapper-table.js';
import type { PeelResult, Peeled, WrapperSpec } from './wrapper-spec.js';
import type { Word } from './words.js';

const NOT_A_WRAPPER: PeelResult = Object.freeze({ kind: 'not-a-wrapper' });

function specOf(program: string): WrapperSpec | undefined {
  // Own keys only: `constructor`, `toString` … are program names, not wrappers.
  if (Object.hasOwn(CLASSIC_WRAPPERS, program)) return CLASSIC_WRAPPERS[program];
  return Object.hasOwn(RUNNERS, program) ? RUNNERS[program] : undefined;
}

interface State {
  chdir: Word | undefined;
  forgetsCwd: boolean;
  writes: Word[];
  reads: Word[];
  assignments: Word[];
  code: Word | undefined;
  notes: string[];
  shell: boolean;
  argv: boolean;
}

type OptionStep = number | 'no-command' | { readonly reason: string };

/** Peels one wrapper off `argv` (argv[0] is the wrapper, already checked to be literal). */
export function peelWrapper(program: string, argv: readonly Word[]): PeelResult {
  const custom = customRunner(program);
  if (custom) return custom(argv);
  let spec = specOf(program);
  if (!spec) return NOT_A_WRAPPER;
  const state: State = { chdir: undefined, forgetsCwd: false, writes: [], reads: [], assignments: [], code: undefined, notes: [], shell: false, argv: false };
  let i = parseOptions(program, spec, argv, 1, state);
  while (typeof i === 'number' && spec.subcommands) {
    const name = argv[i]?.text;
    if (name === undefined || !Object.hasOwn(spec.subcommands, name)) return NOT_A_WRAPPER;
    spec = spec.subcommands[name]!;
    i = parseOptions(program, spec, argv, i + 1, state);
  }
  if (i === 'no-command') return NOT_A_WRAPPER;
  if (typeof i !== 'number') return { kind: 'unresolvable', reason: i.reason };
  for (let operand = 0; operand < (spec.leadingOperands ?? 0); operand++) {
    if (i >= argv.length) return NOT_A_WRAPPER;
    if (spec.leadingOperandsWritten) state.writes.push(argv[i]!);
    const next: OptionStep = spec.optionsAfterOperands ? parseOptions(program, spec, argv, i + 1, state) : i + 1;
    if (next === 'no-command') return NOT_A_WRAPPER;
    if (typeof next !== 'number') return { kind: 'unresolvable', reason: next.reason };
    i = next;
  }
  if (spec.trailingCode && (argv[i]?.text === '-c' || argv[i]?.text === '--command')) {
    const code = argv[i + 1];
    if (!code) return { kind: 'unresolvable', reason: `${program} ${argv[i]!.text} without a command string` };
    state.code = code;
    i = argv.length;
  }
  if (spec.operands === 'files-written') {
    const files = argv.slice(i);
    state.writes.push(...files);
    if (files.length === 0 && state.writes.length === 0 && spec.defaultWrite) state.writes.push(literal(spec.defaultWrite));
    i = argv.length;
  }
  const rest = argv.slice(i);
  const notes = spec.elsewhere ? [...state.notes, spec.elsewhere] : [...state.notes];
  // `sudo -s CMD`: sudo escapes the words for `$SHELL -c` except `$`, which that shell expands.
  if (state.shell && rest.some((word) => word.text.includes('$'))) notes.push(`${program} runs the command through a shell that expands its $`);
  const base: Omit<Peeled, 'run'> = {
    kind: 'inner' as const, wrapper: program, reportSelf: spec.reportSelf ?? false, assignments: state.assignments,
    chdir: state.chdir, forgetsCwd: state.forgetsCwd || (spec.movesCwd ?? false),
    files: [...state.writes.map((word) => ({ word, access: 'write' as const })), ...state.reads.map((word) => ({ word, access: 'read' as const }))],
    suppliesArguments: spec.suppliesArguments ?? false, notes,
  };
  if (state.code) return { ...base, run: { type: 'code', code: state.code } };
  if (i >= argv.length) {
    const shell = spec.shellWithoutCommand === true || state.shell;
    return shell ? { kind: 'unresolvable', reason: `${program} without a command runs a shell reading standard input` } : NOT_A_WRAPPER;
  }
  if (spec.operands === 'code') return rest.length === 1 ? { ...base, run: { type: 'code', code: rest[0]! } } : { kind: 'unresolvable', reason: `${program}: expected one command string` };
  if (spec.operands === 'joined-code' && !state.argv) return { ...base, run: { type: 'code', code: joinWords(rest) } };
  return { ...base, run: { type: 'argv', words: rest } };
}

/** Options from `argv[start]` on; returns the index of the first operand. */
function parseOptions(program: string, spec: WrapperSpec, argv: readonly Word[], start: number, state: State): OptionStep {
  let i = start;
  while (i < argv.length) {
    const word = argv[i]!;
    const text = word.text;
    if (word.dynamic) return { reason: `${program} with an argument known only at run time: ${text}` };
    if (text === '--') return i + 1;
    if (spec.acceptsAssignments && assignedName(text)) {
      state.assignments.push(word);
      i++;
      continue;
    }
    if (program === 'env' && text === '-') {
      i++;
      continue;
    }
    if (!text.startsWith('-') || text === '-') return i;
    const step = spec.anyOption ? anyOption(spec, word, i, state)
      : text.startsWith('--') ? longOption(program, spec, argv, i, state) : shortOptions(program, spec, argv, i, state);
    if (typeof step !== 'number') return step;
    i = step;
  }
  return i;
}

function longOption(program: string, spec: WrapperSpec, argv: readonly Word[], i: number, state: State): OptionStep {
  const text = argv[i]!.text;
  const equals = text.indexOf('=');
  const resolved = longName(spec, text.slice(2, equals === -1 ? undefined : equals));
  if (resolved.kind !== 'one') return { reason: `${program}: ${resolved.kind} option ${text}` };
  const name = resolved.name;
  if (spec.longNoCommand?.includes(name)) return 'no-command';
  if (spec.opaque?.includes(name)) return { reason: `${program} --${name} runs something we do not analyse` };
  if (spec.shellWithoutCommand !== true && spec.shellWithoutCommand?.includes(name)) state.shell = true;
  if (spec.forgetsCwd?.includes(name)) state.forgetsCwd = true;
  if (spec.argvWith?.includes(name)) state.argv = true;
  if (spec.longFlags?.includes(name)) return equals === -1 ? i + 1 : { reason: `${program}: --${name} takes no value` };
  if (spec.longOptional?.includes(name)) return i + 1;
  const value = equals === -1 ? argv[i + 1] : { ...argv[i]!, text: text.slice(equals + 1) };
  if (!value) return { reason: `${program}: --${name} without its value` };
  const problem = noteValue(program, spec, name, value, state);
  if (problem) return problem;
  return equals === -1 ? i + 2 : i + 1;
}

type LongName = { readonly kind: 'one'; readonly name: string } | { readonly kind: 'unknown' | 'ambiguous' };

/** The long option `written` names: exactly, or as a unique prefix where the program allows that. */
function longName(spec: WrapperSpec, written: string): LongName {
  const all = [...(spec.longFlags ?? []), ...(spec.longValued ?? []), ...(spec.longOptional ?? []), ...(spec.longNoCommand ?? [])];
  if (all.includes(written)) return { kind: 'one', name: written };
  if (!spec.abbreviations || written === '') return { kind: 'unknown' };
  const candidates = [...new Set(all.filter((name) => name.startsWith(written)))];
  if (candidates.length === 1) return { kind: 'one', name: candidates[0]! };
  return { kind: candidates.length === 0 ? 'unknown' : 'ambiguous' };
}

function shortOptions(program: string, spec: WrapperSpec, argv: readonly Word[], i: number, state: State): OptionStep {
  const text = argv[i]!.text;
  if (spec.numericOption && /^-\d+$/.test(text)) return i + 1;
  for (let at = 1; at < text.length; at++) {
    const letter = text[at]!;
    if (spec.noCommand?.includes(letter)) return 'no-command';
    if (spec.opaque?.includes(letter)) return { reason: `${program} -${letter} runs something we do not analyse` };
    if (spec.shellWithoutCommand !== true && spec.shellWithoutCommand?.includes(letter)) state.shell = true;
    if (spec.forgetsCwd?.includes(letter)) state.forgetsCwd = true;
    if (spec.argvWith?.includes(letter)) state.argv = true;
    if (spec.flags?.includes(letter)) continue;
    if (spec.optionalValued?.includes(letter)) return i + 1;
    if (!spec.valued?.includes(letter)) return { reason: `${program}: unknown option -${letter} in ${text}` };
    const attached = text.slice(at + 1);
    const value = attached ? { ...argv[i]!, text: attached } : argv[i + 1];
    if (!value) return { reason: `${program}: -${letter} without its value` };
    const problem = noteValue(program, spec, letter, value, state);
    if (problem) return problem;
    return attached ? i + 1 : i + 2;
  }
  return i + 1;
}

/** valgrind-style options: `--name=value` or a flag, never a separate value word. */
function anyOption(spec: WrapperSpec, word: Word, i: number, state: State): OptionStep {
  const match = /^--([^=]+)=(.*)$/.exec(word.text);
  if (match && spec.writes?.includes(match[1]!)) state.writes.push({ ...word, text: match[2]! });
  return i + 1;
}

function noteValue(program: string, spec: WrapperSpec, option: string, value: Word, state: State): { reason: string } | undefined {
  const opaque = spec.opaqueValues && Object.hasOwn(spec.opaqueValues, option) ? spec.opaqueValues[option] : undefined;
  if (opaque && (value.dynamic || opaque.test(value.text))) return { reason: `${program} -${option} ${value.text} runs something we do not analyse` };
  if (spec.chdir?.includes(option)) state.chdir = value;
  if (spec.writes?.includes(option)) state.writes.push(value);
  if (spec.reads?.includes(option)) state.reads.push(value);
  if (spec.environment?.includes(option)) state.assignments.push(value);
  if (spec.code?.includes(option)) {
    state.code = value;
    if (spec.approximateCode?.includes(option)) state.notes.push(`${program} -${option} splits its string like, but not exactly like, the shell`);
  }
  return undefined;
}

function joinWords(words: readonly Word[]): Word {
  return { text: words.map((word) => word.text).join(' '), dynamic: words.some((word) => word.dynamic), glob: false, tildeUnresolved: false, history: false };
}

function literal(text: string): Word {
  return { text, dynamic: false, glob: false, tildeUnresolved: false, history: false };
}
