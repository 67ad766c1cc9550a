import { NO_WORKSPACE, type CallFacts } from '../core/facts.js';
import { decide, decideFacts, type Judged } from '../decision/decide.js';
import type { FileExists } from '../facts/argument-facts.js';
import { extractFacts } from '../facts/extract.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import type { TreeLister } from '../facts/tree-facts.js';
import type { GitHistoryLister } from '../facts/git-history-facts.js';
import type { GitRevisionResolver } from '../facts/git-object-facts.js';
import type { ToolCallState } from '../facts/tool-call.js';
import type { GrantStore } from '../grants/store.js';
import type { Evaluation, GrantLookup } from '../policy/evaluate.js';
import { nonInteractiveFallback, type NonInteractiveFallback, type PolicySet } from '../policy/types.js';
import type { SessionState } from '../session/sessions.js';
import type { ShellEnv } from '../session/shell-state.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { grantLookup } from './grant-items.js';

/** What deciding needs: the policy, the parser, paths, grants and the clock — no I/O to the peers. */
export interface DecisionDeps {
  /** The policy in force now for a session's workspace (layers; hot reload swaps what this returns). */
  readonly policyFor: (workspace: string) => PolicySet;
  readonly shell: ShellAnalyzer;
  readonly home: string;
  /** Workspace for sessions the broker never saw start (the broker's own cwd). */
  readonly fallbackWorkspace: string;
  readonly canonicalize: PathCanonicalizer;
  /** Whether a path exists, for deny-only facts about arguments of unmodelled programs. */
  readonly fileExists: FileExists;
  /** What recursive readers (`grep -r`, `rg`) reach under a directory; absent: their reads are unresolvable. */
  readonly listTree?: TreeLister | undefined;
  /** What `git show ID` names; absent: such revisions are unresolvable. */
  readonly resolveGitRevision?: GitRevisionResolver | undefined;
  /** The files `git log -p` / `git show` / `git diff` may print; absent: such commands are unresolvable. */
  readonly listGitHistory?: GitHistoryLister | undefined;
  readonly nonInteractive: boolean;
  /** Remembered decisions; without a store nothing is remembered and no "always" options are added. */
  readonly grants?: GrantStore | undefined;
  readonly clock: () => Date;
  /** Told of each decision about to be made (the optimiser gate of `run`, src/startup/optimizer-gate.ts). */
  readonly onDecision?: (() => void) | undefined;
}

/**
 * The decision function as the broker's handlers use it: `decide` with the session's workspace,
 * agent, shell directory and grants filled in.
 */
export class Judge {
  private grantLookupFor: GrantStore | undefined;
  private cachedLookup: GrantLookup | undefined;

  constructor(readonly deps: DecisionDeps, private readonly state: SessionState) {}

  /** Remembered decisions as the evaluator sees them (the store may arrive with the engine). */
  private get lookup(): GrantLookup | undefined {
    const store = this.deps.grants;
    if (store !== this.grantLookupFor) {
      this.grantLookupFor = store;
      this.cachedLookup = store ? grantLookup(store, this.deps.clock) : undefined;
    }
    return this.cachedLookup;
  }

  /** The workspace whose policy applies: the session's, else (a session never seen starting) the broker's own cwd's. */
  workspaceOf(sessionId: string | undefined): string {
    return this.sessionWorkspace(sessionId) ?? this.deps.fallbackWorkspace;
  }

  /** The session's workspace; undefined for a session the broker never saw start. */
  private sessionWorkspace(sessionId: string | undefined): string | undefined {
    return sessionId !== undefined ? this.state.workspaceOf(sessionId) : undefined;
  }

  policyFor(workspace: string): PolicySet {
    return this.deps.policyFor(workspace === NO_WORKSPACE ? this.deps.fallbackWorkspace : workspace);
  }

  fallback(sessionId: string | undefined): NonInteractiveFallback {
    return nonInteractiveFallback(this.deps.policyFor(this.workspaceOf(sessionId)));
  }

  /** `agentShell`: the call may run in the agent's own shell, whose directory the session remembers. */
  judge(sessionId: string | undefined, call: ToolCallState, agentShell = false): Judged {
    this.deps.onDecision?.();
    const workspace = this.sessionWorkspace(sessionId);
    const shellCwd = agentShell && sessionId !== undefined && workspace !== undefined ? this.state.shells.cwdFor(sessionId, call, this.shellEnv(workspace)) : undefined;
    const { home, shell, canonicalize, fileExists, listTree, resolveGitRevision, listGitHistory } = this.deps;
    return decide(call, {
      policy: this.deps.policyFor(workspace ?? this.deps.fallbackWorkspace), workspace, home, agent: this.state.agentName, shell, canonicalize, fileExists, listTree, resolveGitRevision, listGitHistory, grants: this.lookup, shellCwd,
    });
  }

  /** Facts judged before, judged again (a grant recorded since may cover them now). */
  rejudge(facts: CallFacts): Evaluation {
    return decideFacts(facts, { policy: this.policyFor(facts.workspace), home: this.deps.home, canonicalize: this.deps.canonicalize, grants: this.lookup });
  }

  /** The session's finished tool call moves its shell (`cd`): facts as they were when it ran. */
  noteFinished(sessionId: string, call: ToolCallState): void {
    const workspace = this.sessionWorkspace(sessionId);
    if (workspace === undefined) return;
    const { home, shell, canonicalize, fileExists, listTree, resolveGitRevision, listGitHistory } = this.deps;
    this.state.shells.noteFinished(sessionId, call, this.shellEnv(workspace), (shellCwd) =>
      extractFacts(call, { workspace, home, agent: this.state.agentName, shell, canonicalize, fileExists, listTree, resolveGitRevision, listGitHistory, shellCwd }));
  }

  /** The last environment built, handed out again while the workspace and agent stay (every call of a session). */
  private lastShellEnv: ShellEnv | undefined;

  private shellEnv(workspace: string): ShellEnv {
    const last = this.lastShellEnv;
    if (last !== undefined && last.workspace === workspace && last.agent === this.state.agentName) return last;
    const { canonicalize } = this.deps;
    const env: ShellEnv = { agent: this.state.agentName, workspace, canonicalize: (path: string) => { const resolved = canonicalize(path); return typeof resolved === 'string' ? resolved : path; } };
    this.lastShellEnv = env;
    return env;
  }
}
