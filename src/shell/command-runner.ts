/**
 * What happens when the shell runs one simple command: builtins that change the cwd, commands
 * that run shell code (`bash -c`, `eval`, `su -c`, `watch`), wrappers peeled to the command they
 * run, `find` actions, and finally the SimpleCommand(s) reported.
 */
import { forkScope, forgetCwd, type AnalysisCollector, type Scope } from './collector.js';
import { applyDirectoryChange, isDirectoryChange } from './directory-changes.js';
import { recordFileArguments } from './file-arguments.js';
import { findActions } from './find-command.js';
import { checkAssignments, checkCommandName, checkGitOptions } from './command-checks.js';
import { nameArgumentHazard } from './hazards.js';
import { basename, resolvePath } from './paths.js';
import { recordOptionFile } from './redirects.js';
import { packageRunnerCode, searchPreprocessors } from './runner-parsers.js';
import { gitRuns } from './git-runners.js';
import { isShell, joinAsScript, parseShellInvocation } from './shell-invocation.js';
import { peelWrapper } from './wrappers.js';
import { projectRunnerHazard } from './project-runners.js';
import type { Word } from './words.js';

/** Where a command's standard input comes from; matters for a shell that reads its commands there. */
export type Stdin =
  | { readonly kind: 'inherited' | 'pipe' | 'file' }
  /** A here-doc or here-string; text undefined when it expands at run time. */
  | { readonly kind: 'text'; readonly text: string | undefined };

/** Context that nested code inherits: wrappers peeled so far and standard input. */
export interface Frame {
  readonly wrappers: readonly string[];
  readonly stdin: Stdin;
}

export interface ScriptHost {
  /** Parses and analyses shell code run by a command (`bash -c CODE`), in its own scope. */
  analyzeScript(source: string, scope: Scope, frame: Frame): void;
}

export interface Invocation {
  argv: readonly Word[];
  assignments: readonly string[];
  wrappers: readonly string[];
  text: string;
  stdin: Stdin;
  scope: Scope;
  /** Arguments are added at run time (xargs, find -exec). */
  suppliedArguments: boolean;
}

/** Runs `invocation` through builtins and wrappers and reports what it executes. */
export function runInvocation(invocation: Invocation, collector: AnalysisCollector, host: ScriptHost): void {
  let current = invocation;
  for (;;) {
    const head = current.argv[0];
    if (!head) return;
    if (!checkCommandName(head, collector)) return emit(current, collector);
    const program = basename(head.text);
    const next = step(program, current, invocation.wrappers.length, collector, host);
    if (!next) return;
    current = next;
  }
}

/**
 * Handles one layer; returns the inner invocation to continue with, if any. `outerWrappers`: how
 * many of `current.wrappers` were there before this invocation's own.
 */
function step(program: string, current: Invocation, outerWrappers: number, collector: AnalysisCollector, host: ScriptHost): Invocation | undefined {
  const { argv, scope } = current;
  if (isDirectoryChange(program) && onlyBuiltinWrappers(current.wrappers, outerWrappers)) {
    applyDirectoryChange(argv, scope, collector.context.home);
    return undefined;
  }
  if (program === 'exec' && argv.length === 1) return undefined; // only redirections: recorded already
  if (isShell(program)) return runShell(program, current, collector, host);
  switch (program) {
    case 'eval':
      emit(current, collector);
      collector.unresolvable('eval runs text built at run time');
      runCode(joinAsScript(argv.slice(1)), 'eval', current, collector, host, false);
      return undefined;
    case 'source':
    case '.':
      emit(current, collector);
      collector.unresolvable(`${program} runs the commands of a file`);
      return undefined;
    case 'alias':
      emit(current, collector);
      if (argv.some((word) => word.text.includes('='))) collector.unresolvable('defines an alias');
      return undefined;
    case 'trap': {
      emit(current, collector);
      // `trap -- CODE SIG…`: `--` ends the options, the code follows.
      const first = argv[1]?.text === '--' ? 2 : 1;
      if (argv.length >= first + 2 && !argv[first]!.text.startsWith('-')) runCode(argv[first]!, 'trap', current, collector, host, true);
      return undefined;
    }
    case 'hash':
      emit(current, collector);
      if (argv.slice(1).some((word) => /^-[a-z]*p/.test(word.text))) collector.unresolvable('hash -p binds a command name to another program');
      return undefined;
    case 'coproc': {
      // `coproc [NAME] { …; }`: tree-sitter-bash reads the braces as words; the body runs.
      const brace = argv.findIndex((word, i) => i > 0 && i <= 2 && (word.text === '{' || word.text === '('));
      if (brace === -1) break;
      collector.unresolvable('coproc with a compound command');
      return { ...current, argv: argv.slice(brace + 1), wrappers: [...current.wrappers, 'coproc'] };
    }
    case 'parallel':
      emit(current, collector);
      collector.unresolvable('parallel builds the commands it runs from a template and its inputs');
      return undefined;
    case 'rg':
      emit(current, collector);
      // `rg --pre CMD` / `--hostname-bin CMD` run CMD (with a file name as argument).
      for (const command of searchPreprocessors(argv)) {
        runInvocation({ ...current, argv: [command], wrappers: [...current.wrappers, 'rg'], stdin: { kind: 'inherited' }, suppliedArguments: true }, collector, host);
      }
      return undefined;
    case 'find':
      runFind(current, collector, host);
      return undefined;
    case 'git': {
      checkGitOptions(argv, collector);
      const runs = gitRuns(argv);
      if (runs.code.length === 0 && runs.argvs.length === 0 && !runs.problem) break;
      emit(current, collector);
      if (runs.problem) collector.unresolvable(runs.problem);
      for (const code of runs.code) runCode(code, 'git', current, collector, host, true);
      for (const inner of runs.argvs) runInvocation({ ...current, argv: inner, wrappers: [...current.wrappers, 'git'], stdin: { kind: 'inherited' } }, collector, host);
      return undefined;
    }
  }
  if (program.startsWith('=') && program.length > 1) {
    // zsh expands a command word `=rm` to the path of rm; bash runs a program named `=rm`.
    collector.unresolvable(`${program}: zsh runs the program ${program.slice(1)}`);
    return { ...current, argv: [{ ...argv[0]!, text: program.slice(1) }, ...argv.slice(1)] };
  }
  const packageCode = packageRunnerCode(program, argv);
  if (packageCode) {
    emit(current, collector);
    runCode(packageCode, program, current, collector, host, true);
    return undefined;
  }
  return peel(program, current, collector, host);
}

/** `builtin cd x` / `command cd x` still change the shell's directory; `sudo cd x` cannot. */
function onlyBuiltinWrappers(wrappers: readonly string[], outerWrappers: number): boolean {
  for (let i = outerWrappers; i < wrappers.length; i++) if (wrappers[i] !== 'builtin' && wrappers[i] !== 'command') return false;
  return true;
}

function peel(program: string, current: Invocation, collector: AnalysisCollector, host: ScriptHost): Invocation | undefined {
  const peeled = peelWrapper(program, current.argv);
  if (peeled.kind === 'not-a-wrapper') {
    emit(current, collector);
    return undefined;
  }
  if (peeled.kind === 'unresolvable') {
    collector.unresolvable(peeled.reason);
    emit(current, collector);
    return undefined;
  }
  if (peeled.reportSelf) emit(current, collector);
  for (const note of peeled.notes) collector.unresolvable(note);
  let scope = current.scope;
  if (peeled.chdir || peeled.forgetsCwd) {
    scope = forkScope(scope);
    if (peeled.forgetsCwd || peeled.chdir!.dynamic || peeled.chdir!.tildeUnresolved) forgetCwd(scope);
    else if (scope.cwd !== undefined) scope.cwd = scope.lastKnownCwd = resolvePath(scope.cwd, peeled.chdir!.text);
  }
  for (const { word, access } of peeled.files) recordOptionFile(word, access, `${program} option`, current.scope, collector);
  const assignments = peeled.assignments.map((word) => word.text);
  checkAssignments(assignments, collector, undefined, true);
  const inner: Invocation = {
    ...current,
    assignments: [...current.assignments, ...assignments],
    wrappers: [...current.wrappers, program],
    scope,
    suppliedArguments: current.suppliedArguments || peeled.suppliesArguments,
  };
  if (peeled.run.type === 'code') {
    // runCode names the runner in the frame's wrappers itself.
    runCode(peeled.run.code, program, { ...inner, wrappers: current.wrappers }, collector, host, true);
    return undefined;
  }
  return { ...inner, argv: peeled.run.words };
}

function runShell(program: string, current: Invocation, collector: AnalysisCollector, host: ScriptHost): undefined {
  collector.environment.noteShell(program, current.argv);
  const invocation = parseShellInvocation(current.argv);
  switch (invocation.kind) {
    case 'script':
      runCode(invocation.script, program, current, collector, host, true);
      return undefined;
    case 'file':
      emit(current, collector);
      return undefined;
    case 'stdin':
      if (current.stdin.kind === 'text' && current.stdin.text !== undefined) {
        host.analyzeScript(current.stdin.text, forkScope(current.scope), frameFor(current, program));
      } else {
        emit(current, collector);
        collector.unresolvable(`${program} reads the commands to run from standard input`);
      }
      return undefined;
    case 'unresolvable':
      emit(current, collector);
      collector.unresolvable(invocation.reason);
      return undefined;
  }
}

/** Analyses shell code given as a word; code only known at run time is unresolvable. */
function runCode(code: Word, runner: string, current: Invocation, collector: AnalysisCollector, host: ScriptHost, mustBeStatic: boolean): void {
  if (code.dynamic) {
    if (mustBeStatic) collector.unresolvable(`${runner} runs code known only at run time: ${code.text}`);
    return;
  }
  host.analyzeScript(code.text, forkScope(current.scope), frameFor(current, runner));
}

function frameFor(current: Invocation, runner: string): Frame {
  return { wrappers: [...current.wrappers, runner], stdin: { kind: 'inherited' } };
}

function runFind(current: Invocation, collector: AnalysisCollector, host: ScriptHost): void {
  emit(current, collector);
  const actions = findActions(current.argv);
  const wrappers = [...current.wrappers, 'find'];
  for (const argv of actions.executes) {
    runInvocation({ ...current, argv, wrappers, stdin: { kind: 'inherited' }, suppliedArguments: true }, collector, host);
  }
  if (actions.deletes) {
    const argv = [literal('rm'), literal('-r'), literal('-f'), literal('--'), ...actions.roots];
    emit({ ...current, argv, wrappers }, collector);
  }
  for (const file of actions.writes) recordOptionFile(file, 'write', 'find', current.scope, collector);
}

function emit(current: Invocation, collector: AnalysisCollector): void {
  const argv = current.argv.map((word) => word.text);
  const program = basename(argv[0] ?? '');
  const nameHazard = nameArgumentHazard(program, current.argv);
  if (nameHazard) collector.unresolvable(nameHazard);
  collector.environment.noteCommand(program, current.argv);
  const runnerHazard = projectRunnerHazard(program, current.argv);
  if (runnerHazard) collector.unresolvable(runnerHazard);
  recordFileArguments(program, current.argv.slice(1), current.suppliedArguments, current.scope, collector);
  if (current.argv.some((word) => word.history)) collector.unresolvable('history expansion (!) in a word');
  collector.commands.push({
    argv,
    program,
    cwd: collector.cwdFor(current.scope),
    assignments: current.assignments,
    wrappers: current.wrappers,
    text: current.text,
    home: collector.context.home,
    dynamicArguments: current.suppliedArguments || current.argv.some((word) => word.dynamic),
  });
}

function literal(text: string): Word {
  return { text, dynamic: false, glob: false, tildeUnresolved: false, history: false };
}
