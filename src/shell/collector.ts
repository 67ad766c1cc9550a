/** The mutable state of one analysis: what was found so far, and the directory each part runs in. */
import type { CommandAnalysis, Redirection, ShellContext, SimpleCommand } from './types.js';
import type { Constants } from './same-line-constants.js';
import { RunnerEnvironment } from './runner-environment.js';
import type { WordContext } from './words.js';

/**
 * Where the shell is at one point of the line. Sequential commands share a scope (a `cd` is seen by
 * what follows); subshells, pipeline parts, background jobs and substitutions get a fork.
 */
export interface Scope {
  /** Undefined once a `cd` made it unknowable (dynamic, conditional, `cd -`). */
  cwd: string | undefined;
  /** The last directory we knew, reported on commands when cwd is unknown. */
  lastKnownCwd: string;
  /** Directories pushed by `pushd` in this line; undefined when no longer known. */
  dirStack: string[] | undefined;
}

export function newScope(cwd: string): Scope {
  return { cwd, lastKnownCwd: cwd, dirStack: [] };
}

export function forkScope(scope: Scope): Scope {
  const stack = scope.dirStack;
  return { cwd: scope.cwd, lastKnownCwd: scope.lastKnownCwd, dirStack: stack === undefined ? undefined : stack.length === 0 ? [] : stack.slice() };
}

export function forgetCwd(scope: Scope): void {
  scope.cwd = undefined;
  scope.dirStack = undefined;
}

const MAX_REASON_LENGTH = 200;

/** Deepest nesting (substitutions, `bash -c`, compound statements) analysed before giving up. */
const MAX_NESTING = 64;

export class AnalysisCollector {
  readonly commands: SimpleCommand[] = [];
  readonly redirections: Redirection[] = [];
  /** Functions the line defines, and why it cannot be resolved: created when the first is found (most lines have none). */
  private functionNames: Set<string> | undefined;
  private reasons: Set<string> | undefined;
  readonly words: WordContext;
  /** Variables the line sets, judged against the project runners it runs when the walk is done. */
  readonly environment = new RunnerEnvironment();
  depth = 0;
  /** Same-line constants (same-line-constants.ts); undefined until the line's own code is parsed. */
  constants: Constants | undefined;
  /** Above 0 while analysing code another process runs (`bash -c`): it does not see the constants. */
  constantsHidden = 0;

  constructor(readonly context: ShellContext, line: string) {
    this.words = {
      home: context.home,
      homeIsReliable: !mayChangeHome(line),
      constant: (name, quoted) => (this.constantsHidden > 0 ? undefined : this.constants?.valueOf(name, quoted)),
    };
  }

  unresolvable(reason: string): void {
    // Reasons quote the offending text; keep them readable when that text is huge.
    (this.reasons ??= new Set()).add(reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}…` : reason);
  }

  /** A function the line defines: calling it later in the line runs code the analysis attributes to no program. */
  defineFunction(name: string): void {
    (this.functionNames ??= new Set()).add(name);
  }

  /** The cwd to run something in; notes an unresolvable reason when it is not known. */
  cwdFor(scope: Scope): string {
    if (scope.cwd !== undefined) return scope.cwd;
    this.unresolvable('working directory not known statically (dynamic or conditional cd)');
    return scope.lastKnownCwd;
  }

  /** Runs `body` one level deeper; false (and unresolvable) when nested too deeply. */
  nested(body: () => void): boolean {
    if (!this.enter()) return false;
    try {
      body();
    } finally {
      this.leave();
    }
    return true;
  }

  /** `nested` in two halves, for hot callers: enter (false, and unresolvable, when too deep), then leave. */
  enter(): boolean {
    if (this.depth >= MAX_NESTING) {
      this.unresolvable('nested too deeply to analyse');
      return false;
    }
    this.depth++;
    return true;
  }

  leave(): void {
    this.depth--;
  }

  /** `finalCwd`: where the line leaves the shell (null: not known); omitted when the walk did not finish. */
  result(finalCwd?: string | null): CommandAnalysis {
    const functionNames = this.functionNames;
    if (functionNames !== undefined) {
      for (const command of this.commands) {
        if (functionNames.has(command.program)) {
          this.unresolvable(`calls the function ${command.program} defined in the same line`);
        }
      }
    }
    for (const problem of this.environment.problems(this.commands)) this.unresolvable(problem);
    const unresolvable = this.reasons === undefined ? [] : [...this.reasons];
    return finalCwd === undefined
      ? { commands: this.commands, redirections: this.redirections, unresolvable }
      : { commands: this.commands, redirections: this.redirections, unresolvable, finalCwd };
  }
}

/** The line mentions HOME other than by reading `$HOME` / `${HOME}` (assignment, export, read …). */
function mayChangeHome(line: string): boolean {
  if (!line.includes('HOME')) return false;
  return /(^|[^$\w{])HOME(?!\w)/.test(line) || /\$\{HOME[:=]/.test(line);
}
