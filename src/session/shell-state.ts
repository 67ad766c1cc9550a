/**
 * The directory of an agent's shell that outlives one call. claude-code-acp / claude-agent-acp run
 * their built-in `Bash` tool in one shell that keeps its directory between calls (the shell is reset
 * to the project when a command leaves it); through the client's terminal (`mcp__acp__Bash`) every
 * command starts afresh. codex, gemini-cli and qwen-code start every command in a new process.
 *
 * After an allowed call of such a shell finishes, its top-level `cd`s move the session's shell for
 * the next calls. Whatever cannot be known for certain leaves the directory unknown (null): a line
 * not resolvable statically, a call that failed after moving, a call still running while another is
 * decided, a directory outside the workspace. A denied or cancelled call did not run: nothing moves.
 */
import type { CallFacts } from '../core/facts.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import type { ToolCallState } from '../facts/tool-call.js';

/** `maybe`: the call may run in the persistent shell or in a fresh one. */
export type ShellPersistence = 'persistent' | 'maybe' | 'none';

export interface ShellEnv {
  readonly agent: string | undefined;
  readonly workspace: string;
  readonly canonicalize: PathCanonicalizer;
}

const CLAUDE_AGENT = /(^|\/)claude-(code|agent)-acp$/;
const MAX_TRACKED = 10_000;

/** Whether this call runs in the session's persistent shell. */
export function shellPersistence(agent: string | undefined, call: ToolCallState): ShellPersistence {
  const claudeMeta = call._meta?.claudeCode;
  const metaTool = isRecord(claudeMeta) && typeof claudeMeta.toolName === 'string' ? claudeMeta.toolName : undefined;
  const claude = (agent !== undefined && CLAUDE_AGENT.test(agent)) || metaTool !== undefined;
  if (!claude) return 'none';
  const tool = typeof call.name === 'string' && call.name !== '' ? call.name : metaTool;
  if (tool === undefined) return 'maybe';
  if (tool !== 'Bash') return 'none';
  // A background command runs beside the shell; whether its `cd` stays is not something to rely on.
  return isRecord(call.rawInput) && call.rawInput.run_in_background === true ? 'maybe' : 'persistent';
}

interface Running {
  /** The directory the call leaves the shell in; null when not known. */
  readonly final: string | null;
}

export class SessionShells {
  /** Absent: the session's shell never moved (it is in the workspace). */
  private readonly cwdBySession = new Map<string, string | null>();
  /** Allowed calls of a persistent shell that have not finished, by session then toolCallId. */
  private readonly running = new Map<string, Map<string, Running>>();
  private readonly refused = new Set<string>();
  private readonly persistenceByCall = new Map<string, ShellPersistence>();

  /**
   * For deciding a call: where its shell starts as far as the session's state says; undefined when
   * the call starts a fresh shell (or the shell never moved), null when not known.
   */
  cwdFor(sessionId: string, call: ToolCallState, env: ShellEnv): string | null | undefined {
    const persistence = shellPersistence(env.agent, call);
    bounded(this.persistenceByCall).set(key(sessionId, call.toolCallId), persistence);
    return this.startFor(sessionId, persistence, env);
  }

  /** The broker's (or the human's) verdict on a call decided with `cwdFor`. */
  noteVerdict(sessionId: string | undefined, toolCallId: string | undefined, decision: string | undefined, facts: CallFacts): void {
    if (sessionId === undefined || toolCallId === undefined) return;
    const callKey = key(sessionId, toolCallId);
    const persistence = this.persistenceByCall.get(callKey);
    if (persistence === undefined || persistence === 'none') return;
    if (decision === 'allow') {
      const final = finalCwdOf(facts);
      if (final === undefined) return;
      this.refused.delete(callKey);
      let session = this.running.get(sessionId);
      if (!session) bounded(this.running).set(sessionId, session = new Map());
      bounded(session).set(toolCallId, { final });
    } else if (decision === 'deny' || decision === 'cancelled') {
      this.running.get(sessionId)?.delete(toolCallId);
      bounded(this.refused).add(callKey);
    }
  }

  /**
   * A tool call finished (status completed or failed). A call the broker saw allowed moves the shell
   * as its analysis said; one it never judged is analysed now (`analyse`, given where it started).
   */
  noteFinished(sessionId: string, call: ToolCallState, env: ShellEnv, analyse: (shellCwd: string | null | undefined) => CallFacts): void {
    const callKey = key(sessionId, call.toolCallId);
    const session = this.running.get(sessionId);
    const allowed = session?.get(call.toolCallId);
    session?.delete(call.toolCallId);
    if (session?.size === 0) this.running.delete(sessionId);
    const judged = this.persistenceByCall.get(callKey);
    this.persistenceByCall.delete(callKey);
    if (this.refused.delete(callKey)) return;
    const persistence = judged ?? shellPersistence(env.agent, call);
    if (persistence === 'none') return;
    let final: string | null | undefined;
    if (allowed) final = allowed.final;
    else {
      try {
        final = finalCwdOf(analyse(this.startFor(sessionId, persistence, env)));
      } catch {
        final = null; // it ran, and what it did cannot be told
      }
    }
    if (final !== undefined) this.move(sessionId, call.status === 'completed', final, persistence, env);
  }

  private startFor(sessionId: string, persistence: ShellPersistence, env: ShellEnv): string | null | undefined {
    if (persistence === 'none') return undefined;
    const current = this.cwdBySession.get(sessionId);
    const here = current === undefined ? env.canonicalize(env.workspace) : current;
    const session = this.running.get(sessionId);
    // Another allowed call that moves the shell has not finished: this one may start before or after it.
    if (session && [...session.values()].some((r) => r.final === null || env.canonicalize(r.final) !== here)) return null;
    if (persistence === 'maybe' && here !== env.canonicalize(env.workspace)) return null;
    return current;
  }

  private move(sessionId: string, completed: boolean, final: string | null, persistence: ShellPersistence, env: ShellEnv): void {
    const workspace = env.canonicalize(env.workspace);
    const current = this.cwdBySession.has(sessionId) ? this.cwdBySession.get(sessionId)! : workspace;
    let next = final === null ? null : env.canonicalize(final);
    // claude puts a shell that left the project back into it; which one it allows is its own setting.
    if (next !== null && next !== workspace && !next.startsWith(workspace.endsWith('/') ? workspace : `${workspace}/`)) next = null;
    // A failed call may have stopped anywhere along the line; a maybe-persistent one may not have moved at all.
    if (next !== current && (!completed || persistence === 'maybe')) next = null;
    if (next === workspace) this.cwdBySession.delete(sessionId);
    else this.cwdBySession.set(sessionId, next); // as many as sessions, like the workspaces of SessionState
  }
}

/** Where the line leaves the shell: undefined when the call ran no shell line, null when not known. */
function finalCwdOf(facts: CallFacts): string | null | undefined {
  if (!facts.shell) return undefined;
  if (facts.unresolvable.length > 0) return null;
  return facts.shell.finalCwd ?? null;
}

function key(sessionId: string, toolCallId: string): string {
  return `${sessionId}\u0000${toolCallId}`;
}

/** The collection, with its oldest entry dropped first when it is full. */
function bounded<T extends Map<unknown, unknown> | Set<unknown>>(collection: T): T {
  if (collection.size >= MAX_TRACKED) collection.delete(collection.keys().next().value);
  return collection;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
