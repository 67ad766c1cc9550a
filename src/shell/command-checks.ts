/**
 * Checks on one simple command that make a line unresolvable: a command name that is not a fixed,
 * plain word, prefix assignments that change what a command runs, git global options that run a
 * program of the caller's choosing. Used by command-runner.ts and statement-walker.ts.
 */
import type { AnalysisCollector } from './collector.js';
import { assignedName, isExecutingGitConfig, isHazardousPrefixAssignment } from './hazards.js';
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

/** `program`: the command these are prefix assignments of, when there is one (`IFS= read`). */
export function checkAssignments(assignments: readonly string[], collector: AnalysisCollector, program?: string): void {
  for (let i = 0; i < assignments.length; i++) {
    collector.environment.noteAssignment(assignments[i]!);
    const name = assignedName(assignments[i]!);
    if (name && isHazardousPrefixAssignment(name, program)) collector.unresolvable(`sets ${name}, which changes what a command runs`);
  }
}
