/**
 * Checks on one simple command that make a line unresolvable: a command name that is not a fixed,
 * plain word, prefix assignments that change what a command runs, git global options that run a
 * program of the caller's choosing. Used by command-runner.ts and statement-walker.ts.
 */
import type { AnalysisCollector } from './collector.js';
import { assignedName, isExecutingGitConfig, isHazardousPrefixAssignment } from './hazards.js';
import { isInertVariable } from './inert-variables.js';
import { isProjectRunner } from './project-runners.js';
import { basename } from './paths.js';
import { hasSuspiciousNameCharacter } from './screen.js';
import type { Word } from './words.js';

/** `git -c core.pager=… log` runs a program of the caller's choosing; so do --exec-path, --config-env. */
export function checkGitOptions(argv: readonly Word[], collector: AnalysisCollector): void {
  for (let i = 1; i < argv.length; i++) {
    const text = argv[i]!.text;
    if (!text.startsWith('-')) return; // the subcommand: global options end here
    const value = text === '-c' ? argv[i + 1] : undefined;
    if (value && (value.dynamic || isExecutingGitConfig(value.text))) {
      collector.unresolvable(`git -c ${value.text} may run another program`);
    }
    if (text.startsWith('--exec-path=') || text.startsWith('--config-env')) collector.unresolvable(`git ${text} may run another program`);
    if (['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env'].includes(text)) i++;
  }
}

/** False (and unresolvable) when the command name is not a fixed, plain word. */
export function checkCommandName(head: Word, collector: AnalysisCollector): boolean {
  const problem = commandNameProblem(head);
  if (problem) collector.unresolvable(problem);
  return !problem;
}

/** Reserved words tree-sitter leaves as command names when it misparses (`coproc P { ls; }`). */
const RESERVED_WORDS: ReadonlySet<string> = new Set(['{', '}', 'then', 'fi', 'do', 'done', 'esac', 'elif', 'else', 'in', 'function', 'select', 'case', 'if', 'while', 'until', 'for']);

function commandNameProblem(head: Word): string | undefined {
  const name = head.text;
  if (head.dynamic) return `command name known only at run time: ${name}`;
  // A same-line constant (`x=ls; $x`) is known, but a name should be visible where it runs.
  if (head.fromVariable) return `command name comes from a variable: ${name}`;
  if (head.glob) return `command name is a glob pattern: ${name}`;
  if (head.tildeUnresolved) return `command name starts with an unexpanded ~: ${name}`;
  if (name === '') return 'empty command name';
  if (RESERVED_WORDS.has(name)) return `reserved word where a command name should be (the parse is not trusted): ${name}`;
  if (hasSuspiciousNameCharacter(basename(name))) return `unusual character (non-ASCII look-alike, space or control) in command name: ${JSON.stringify(name)}`;
  return undefined;
}

/**
 * Builtins that run no other program: a variable set for them (`IFS= read -r l`, `LC_ALL=C printf`)
 * stays in the shell.
 */
const SHELL_ONLY_BUILTINS: ReadonlySet<string> = new Set([
  'read', 'mapfile', 'readarray', 'printf', 'echo', 'test', '[', 'true', 'false', ':', 'cd', 'pushd', 'popd', 'shift', 'return', 'exit', 'set', 'unset', 'let',
]);

/**
 * `program`: the command these are prefix assignments of, when there is one (`IFS= read`);
 * `forProgram`: they are set for a program even without one named here (`env X=v CMD`).
 */
export function checkAssignments(assignments: readonly string[], collector: AnalysisCollector, program?: string, forProgram = program !== undefined): void {
  for (let i = 0; i < assignments.length; i++) {
    const text = assignments[i]!;
    collector.environment.noteAssignment(text);
    const name = assignedName(text);
    if (!name) continue;
    if (isHazardousPrefixAssignment(name, program)) collector.unresolvable(`sets ${name}, which changes what a command runs`);
    // What a program, or the C library under it, reads from its environment is not modelled beyond the
    // inert list (GCONV_PATH loads code, LOCPATH and TZDIR read files): any other variable set for it is unknown.
    // (A project runner's variables are judged with the whole line's: runner-environment.ts.)
    else if (forProgram && !(program !== undefined && (SHELL_ONLY_BUILTINS.has(program) || isProjectRunner(program))) && !isInertVariable(name, text.slice(text.indexOf('=') + 1))) {
      collector.unresolvable(`sets ${name} for ${program ?? 'the command'}, not a known inert variable (a program or its C library may read it: GCONV_PATH loads code)`);
    }
  }
}
