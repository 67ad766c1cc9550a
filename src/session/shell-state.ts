/**
 * The directory of an agent's shell that outlives one call. claude-code-acp / claude-agent-acp run
 * their built-in `Bash` tool in one shell that keeps its directory between calls (the shell is reset
 * to the project when a command leaves it); through the client's terminal (`mcp__acp__Bash`) every
 * command starts afresh. codex, gemini-cli and qwen-code start every command in a new process.
 *
 * After an allowed call of such a shell finishes, its top-level `cd`s move the session's shell for
 * the next calls. The shell may also have stayed, or been put back into the project (move()), so the
 * session keeps every directory its shell may be in, and a call is judged from each of them.
 * Whatever cannot be known for certain leaves the directory unknown (null): a line not resolvable
 * statically, a call that failed after moving, a call still running while another is decided. A
 * denied or cancelled call did not run: nothing moves.
 */
import { dropOldest } from '../core/bounded-collections.js';
import type { CallFacts } from '../core/facts.js';
import { finalCwdsOf } from '../facts/shell-call.js';
import type { ToolCallState } from '../facts/tool-call.js';

/** `maybe`: the call may run in the persistent shell or in a fresh one. */
export type ShellPersistence = 'persistent' | 'maybe' | 'none';

export interface ShellEnv {
  readonly agent: string | undefined;
  readonly workspace: string;
  /**
   * A directory as the kernel would resolve it; one that cannot be resolved stays as written (every
   * path later resolved under it goes through the full canonicaliser, which then fails closed).
   */
  readonly canonicalize: (absolutePath: string) => string;
}

const CLAUDE_AGENT = /(^|\/)claude-(code|agent)-acp$/;
const MAX_TRACKED = 10_000;

/** Whether this call runs in the session's persistent shell. */
function shellPersistence(agent: string | undefined, call: ToolCallState): ShellPersistence {
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

interface Effect {
  /** Where the call leaves the shell from each start it may have had (in `starts` order); null where not known. */
  readonly finals: readonly (string | null)[];
  readonly starts: readonly string[];
}

/** The directories a session's shell may be in: more than this many count as not known. */
const MAX_CANDIDATES = 4;

export class SessionShells {
  /** Absent: the session's shell never moved (it is in the workspace); null: not known. */
  private readonly cwdBySession = new Map<string, readonly string[] | null>();
  /** Allowed calls of a persistent shell that have not finished, by session then toolCallId. */
  private readonly running = new Map<string, Map<string, Effect>>();
  private readonly refused = new Set<string>();
  private readonly judged = new Map<string, { readonly persistence: ShellPersistence; readonly starts: readonly string[] | null }>();

  /**
   * For deciding a call: the directories its shell may start in as far as the session's state says;
   * undefined when the call starts a fresh shell (or the shell never moved), null when not known.
   */
  cwdFor(sessionId: string, call: ToolCallState, env: ShellEnv): readonly string[] | null | undefined {
    const persistence = shellPersistence(env.agent, call);
    if (persistence === 'none') return undefined;
    const starts = this.startsFor(sessionId, persistence, env);
    const known = starts === undefined ? [env.canonicalize(env.workspace)] : starts;
    bounded(this.judged).set(key(sessionId, call.toolCallId), { persistence, starts: known });
    return starts;
  }

  /** The broker's (or the human's) verdict on a call decided with `cwdFor`. */
  noteVerdict(sessionId: string | undefined, toolCallId: string | undefined, decision: string | undefined, facts: CallFacts): void {
    if (sessionId === undefined || toolCallId === undefined) return;
    const callKey = key(sessionId, toolCallId);
    const judged = this.judged.get(callKey);
    if (judged === undefined || judged.persistence === 'none') return;
    if (decision === 'allow') {
      if (!facts.shell) return;
      this.refused.delete(callKey);
      let session = this.running.get(sessionId);
      if (!session) bounded(this.running).set(sessionId, session = new Map());
      bounded(session).set(toolCallId, effectOf(facts, judged.starts));
    } else if (decision === 'deny' || decision === 'cancelled') {
      this.running.get(sessionId)?.delete(toolCallId);
      bounded(this.refused).add(callKey);
    }
  }

  /**
   * A tool call finished (status completed or failed). A call the broker saw allowed moves the shell
   * as its analysis said; one it never judged is analysed now (`analyse`, given where it may start).
   */
  noteFinished(sessionId: string, call: ToolCallState, env: ShellEnv, analyse: (shellCwd: readonly string[] | null | undefined) => CallFacts): void {
    const callKey = key(sessionId, call.toolCallId);
    const session = this.running.get(sessionId);
    let effect = session?.get(call.toolCallId);
    session?.delete(call.toolCallId);
    if (session?.size === 0) this.running.delete(sessionId);
    const judged = this.judged.get(callKey);
    this.judged.delete(callKey);
    if (this.refused.delete(callKey)) return;
    const persistence = judged?.persistence ?? shellPersistence(env.agent, call);
    if (persistence === 'none') return;
    if (!effect) {
      const starts = this.startsFor(sessionId, persistence, env);
      try {
        const facts = analyse(starts);
        if (!facts.shell) return;
        effect = effectOf(facts, starts === undefined ? [env.canonicalize(env.workspace)] : starts);
      } catch {
        effect = { finals: [null], starts: [] }; // it ran, and what it did cannot be told
      }
    }
    this.move(sessionId, call.status === 'completed', effect, env);
  }

  private startsFor(sessionId: string, persistence: ShellPersistence, env: ShellEnv): readonly string[] | null | undefined {
    if (persistence === 'none') return undefined;
    const workspace = env.canonicalize(env.workspace);
    const current = this.cwdBySession.has(sessionId) ? this.cwdBySession.get(sessionId)! : [workspace];
    const session = this.running.get(sessionId);
    // Another allowed call that moves the shell has not finished: this one may start before or after it.
    if (session && [...session.values()].some((e) => !movesNothing(e, env.canonicalize))) return null;
    if (current === null) return null;
    // A call that may start a fresh shell may start in the workspace too.
    const starts = persistence === 'maybe' ? union(current, [workspace]) : current;
    return starts.length === 1 && starts[0] === workspace ? undefined : starts;
  }

  private move(sessionId: string, completed: boolean, effect: Effect, env: ShellEnv): void {
    // A line that moves nothing leaves the shell where it was, whatever its status.
    if (movesNothing(effect, env.canonicalize)) return;
    const workspace = env.canonicalize(env.workspace);
    let next: readonly string[] | null = null;
    // A failed call may have stopped anywhere along the line; a line not resolvable may go anywhere.
    if (completed && effect.finals.every((f): f is string => f !== null)) {
      // Where the line ends; where it started, for claude records the shell's directory only once the
      // whole line ran (one that ends itself early, `exit 0`, leaves it unrecorded); and the project,
      // where claude may put the shell back (always, or when it left the directories it allows, by
      // version and setting).
      next = union(effect.finals.map((f) => env.canonicalize(f)), effect.starts, [workspace]);
    }
    if (next !== null && next.length > MAX_CANDIDATES) next = null;
    if (next !== null && next.length === 1 && next[0] === workspace) this.cwdBySession.delete(sessionId);
    else this.cwdBySession.set(sessionId, next); // as many as sessions, like the workspaces of SessionState
  }
}

/** Where an allowed line leaves the shell from each start; not known when the line is not resolvable. */
function effectOf(facts: CallFacts, starts: readonly string[] | null): Effect {
  if (!facts.shell || facts.unresolvable.length > 0) return { finals: [null], starts: starts ?? [] };
  return { finals: finalCwdsOf(facts.shell), starts: starts ?? [] };
}

function movesNothing(effect: Effect, canonicalize: ShellEnv['canonicalize']): boolean {
  return effect.finals.length === effect.starts.length && effect.finals.every((f, i) => f !== null && canonicalize(f) === effect.starts[i]);
}

function union(...lists: (readonly string[])[]): string[] {
  return [...new Set(lists.flat())];
}

function key(sessionId: string, toolCallId: string): string {
  return `${sessionId}\u0000${toolCallId}`;
}

/** The collection, with room for one more: its oldest entries dropped first when it is full. */
function bounded<T extends Map<unknown, unknown> | Set<unknown>>(collection: T): T {
  dropOldest(collection, MAX_TRACKED - 1);
  return collection;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
