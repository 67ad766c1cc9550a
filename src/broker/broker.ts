import { performance } from 'node:perf_hooks';
import type { AnswerSource, AuditEventV1, CancelledBy, Outcome } from '../audit/event.js';
import { decisionEvent } from '../audit/event.js';
import type { AuditSink } from '../audit/sink.js';
import type { CallFacts } from '../core/facts.js';
import type { FileExists } from '../facts/argument-facts.js';
import { extractFacts } from '../facts/extract.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import { mergeToolCall, type ToolCallState } from '../facts/tool-call.js';
import { ACP, isOfferedOption, optionOfKind, type OfferedOption, type PermissionOutcome } from '../protocol/acp.js';
import { classify, encode, idKey, RPC_ERRORS, type RpcId } from '../protocol/jsonrpc.js';
import { evaluate, type Evaluation, type GrantLookup } from '../policy/evaluate.js';
import { nonInteractiveFallback, type NonInteractiveFallback, type PolicySet } from '../policy/types.js';
import { SessionState } from '../session/sessions.js';
import type { ShellAnalyzer } from '../shell/types.js';
import type { GrantStore } from '../grants/store.js';
import type { GrantScope } from '../grants/grant.js';
import { answerFor } from './answer.js';
import { BROKER_OPTION_PREFIX, escalationOptions, offerForAgentAlways, type GrantOffer } from './escalation.js';
import { grantLookup } from './grant-items.js';
import { enforcedCallProblem } from './enforced-calls.js';
import { ModeGuard, SET_CONFIG_OPTION, SET_MODE } from './modes.js';
import { modePolicyOf } from '../policy/modes.js';
import { agentChunkScanner, agentLineNeedsInspection, clientChunkScanner, clientLineNeedsInspection, INTERCEPTED_METHODS, mayHoldInterceptedRequest } from './prefilter.js';
import { topLevelIdAndMethod, trailingTopLevelId } from '../protocol/json-head.js';

export interface BrokerDeps {
  /** The policy in force now for a session's workspace (layers; hot reload swaps what this returns). */
  readonly policyFor: (workspace: string) => PolicySet;
  readonly shell: ShellAnalyzer;
  readonly home: string;
  /** Workspace for sessions the broker never saw start (the broker's own cwd). */
  readonly fallbackWorkspace: string;
  readonly canonicalize: PathCanonicalizer;
  /** Whether a path exists, for deny-only facts about arguments of unmodelled programs. */
  readonly fileExists: FileExists;
  readonly nonInteractive: boolean;
  /** Remembered decisions; without a store nothing is remembered and no "always" options are added. */
  readonly grants?: GrantStore;
  readonly audit: AuditSink;
  /**
   * Where the broker's audit work runs: at once by default. The relay passes a queue that runs it
   * right after the message in hand is handled, once the agent's answer has left: everything before
   * that write is on the agent's round trip, and building an audit event is a good part of a
   * decision's cost. Events keep their order either way.
   */
  readonly deferAudit?: (work: () => void) => void;
  readonly clock: () => Date;
  readonly newDecisionId: () => string;
  readonly log: (message: string) => void;
  readonly toAgent: (bytes: Buffer) => void;
  readonly toClient: (bytes: Buffer) => void;
  /**
   * Resolves once `shell` and `policyFor` may be used (the parser loads while the agent starts).
   * Until then permission requests and enforced calls are held — each holds only itself.
   */
  readonly decisionsReady?: Promise<unknown>;
  /** How long an escalated request may wait for a human before it gets the non-interactive fallback. */
  readonly escalationTimeoutMs?: number;
}

/** What deciding itself needs: the policy, the parser, paths, grants and the clock — no I/O to the peers. */
export type DecisionDeps = Pick<BrokerDeps, 'policyFor' | 'shell' | 'home' | 'fallbackWorkspace' | 'canonicalize' | 'fileExists' | 'grants' | 'nonInteractive' | 'clock'>;

/** A permission request the broker answers itself but has not answered yet. */
interface Held {
  readonly id: RpcId;
  readonly sessionId: string;
  settled: boolean;
}

/** A call the broker judged, as the audit log records it. */
interface JudgedCall {
  readonly sessionId: string | undefined;
  readonly toolCallId: string | undefined;
  readonly facts: CallFacts;
  readonly evaluation: Evaluation;
  readonly started: number;
}

/** A permission request escalated to the client, waiting for its answer. */
interface Forwarded extends JudgedCall {
  readonly id: RpcId;
  readonly sessionId: string;
  readonly agentOptions: readonly OfferedOption[];
  readonly offers: ReadonlyMap<string, GrantOffer>;
  /** Answered by the broker (a new grant covered it); the client's late answer is dropped. */
  settled: boolean;
}

const MAX_FORWARDED = 10_000;


/** What the agent got, in audit terms, for an answer of this polarity. */
function verdict(polarity: 'allow' | 'deny', outcome: PermissionOutcome): { decision: 'allow' | 'deny' | 'cancelled'; outcome: Outcome; optionId?: string } {
  if (outcome.outcome === 'cancelled') return { decision: 'cancelled', outcome: 'cancelled' };
  return { decision: polarity, outcome: polarity === 'allow' ? 'allowed' : 'denied', optionId: outcome.optionId };
}

const ENFORCED_KIND: Readonly<Record<string, 'read' | 'edit' | 'execute'>> = {
  [ACP.fsRead]: 'read', [ACP.fsWrite]: 'edit', [ACP.terminalCreate]: 'execute',
};

/**
 * The broker's view of one editor ⇄ agent connection. Every line is forwarded unchanged except
 * agent→client permission requests it answers itself and enforced fs/terminal calls it denies.
 */
export class Broker {
  readonly state = new SessionState();
  private readonly held = new Map<string, Held>();
  /** fs/terminal requests waiting for the engine, like `held`. */
  private readonly heldEnforced = new Set<{ readonly id: RpcId; readonly method: string; settled: boolean }>();
  private readonly forwarded = new Map<string, Forwarded>();
  private grantLookupFor: GrantStore | undefined;
  private cachedLookup: GrantLookup | undefined;
  private escalations = 0;

  /**
   * For the relay's fast path: where in a chunk of lines one may need `fromAgent` / `fromClient` to
   * look at it, by the same rule and state as they use. Lines before that are forwarded unseen.
   */
  readonly agentScanner = agentChunkScanner(() => this.awaitingAgentResponses());
  readonly clientScanner = clientChunkScanner(() => this.forwarded.size > 0);

  /** Remembered decisions as the evaluator sees them (the store may arrive with the engine). */
  private get lookup(): GrantLookup | undefined {
    const store = this.deps.grants;
    if (store !== this.grantLookupFor) {
      this.grantLookupFor = store;
      this.cachedLookup = store ? grantLookup(store, this.deps.clock) : undefined;
    }
    return this.cachedLookup;
  }

  /** Work waiting for `decisionsReady`, in arrival order; undefined once decisions can be made. */
  private waiting: (() => void)[] | undefined;
  private readonly modes: ModeGuard;

  constructor(private readonly deps: BrokerDeps) {
    this.modes = new ModeGuard({
      policyFor: (workspace) => deps.policyFor(workspace || deps.fallbackWorkspace), toAgent: deps.toAgent, toClient: deps.toClient,
      audit: (event) => this.audit(event), log: deps.log, clock: deps.clock,
    });
    if (deps.decisionsReady) {
      this.waiting = [];
      const flush = () => {
        const queued = this.waiting ?? [];
        this.waiting = undefined;
        for (const run of queued) run();
      };
      deps.decisionsReady.then(flush, (error: unknown) => {
        // Decisions then fail closed one by one (the deciding code throws and is caught).
        deps.log(`acp-broker: the policy engine failed to start: ${(error as Error).message}`);
        flush();
      });
    }
  }

  /** A line from the editor (client → agent). */
  fromClient(line: Buffer): void {
    if (this.readClientLine(line, true) === 'forward') this.deps.toAgent(line);
  }

  /**
   * A client line that already reached the agent (forwarded before the relay loaded): its facts are
   * noted as if it had come through here. Nothing can be waiting on the client yet at that point.
   */
  observeClient(line: Buffer): void {
    this.readClientLine(line, false);
  }

  /** What a client line tells the broker; 'handled' when the broker answered in its place (only when it may: `canAnswer`). */
  private readClientLine(line: Buffer, canAnswer: boolean): 'forward' | 'handled' {
    if (clientLineNeedsInspection(line, this.forwarded.size > 0)) {
      const message = classify(parseLine(line));
      if (message.type === 'response' && this.forwarded.has(idKey(message.id))) {
        let handled = false;
        try {
          handled = this.onClientAnswer(message.id, message.result, line);
        } catch (error) {
          this.deps.log(`acp-broker: internal error handling the client's answer: ${(error as Error).message}`);
          // The agent must never receive an option id it did not offer (the broker's own): refuse instead.
          if (line.includes(BROKER_OPTION_PREFIX)) {
            const entry = this.forwarded.get(idKey(message.id));
            this.forwarded.delete(idKey(message.id));
            const answer = answerFor('deny', entry?.agentOptions ?? []);
            this.answerAgent(message.id, answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' });
            return 'handled';
          }
        }
        if (handled) return 'handled';
      } else if (message.type === 'request') {
        if (canAnswer && (message.method === SET_MODE || message.method === SET_CONFIG_OPTION)) {
          const sessionId = (message.params as { sessionId?: unknown } | undefined)?.sessionId;
          const workspace = typeof sessionId === 'string' ? this.state.workspaceOf(sessionId) : undefined;
          if (this.modes.onClientRequest(message.method, message.id, message.params, workspace, this.waiting === undefined)) return 'handled';
        }
        this.state.noteClientRequest(message.method, message.id, message.params);
      } else if (message.type === 'notification' && message.method === ACP.sessionCancel) {
        const sessionId = (message.params as { sessionId?: unknown } | undefined)?.sessionId;
        if (typeof sessionId === 'string') this.cancelHeld((h) => h.sessionId === sessionId, 'session/cancel');
      }
    }
    return 'forward';
  }

  /** A line from the agent (agent → client). */
  fromAgent(line: Buffer): void {
    if (!agentLineNeedsInspection(line, this.awaitingAgentResponses())) {
      this.deps.toClient(line);
      return;
    }
    const parsed = parseLine(line);
    if (parsed === undefined && mayHoldInterceptedRequest(line)) return this.refuseUnreadable(line);
    if (Array.isArray(parsed) && mayHoldInterceptedRequest(line)) return this.refuseBatch(parsed);
    const message = classify(parsed);
    switch (message.type) {
      case 'request':
        if (message.method === ACP.requestPermission) {
          if (this.waiting) return this.holdUntilReady(message.id, message.params, line);
          return this.onPermissionRequest(message.id, message.params, line);
        }
        if (message.method in ENFORCED_KIND) {
          const { id, method, params } = message;
          if (this.waiting) return this.holdEnforcedUntilReady(id, method, params, line);
          return this.onEnforcedRequest(id, method, params, line);
        }
        break;
      case 'notification':
        if (message.method === ACP.sessionUpdate) this.onSessionUpdate(message.params);
        else if (message.method === ACP.cancelRequest) {
          const requestId = (message.params as { requestId?: RpcId } | undefined)?.requestId;
          if (requestId !== undefined && this.held.has(idKey(requestId))) {
            // The client never saw this request, so the cancel is ours to honour, not the client's.
            this.cancelHeld((h) => idKey(h.id) === idKey(requestId), '$/cancel_request');
            return;
          }
        }
        break;
      case 'response':
        if (this.modes.onAgentResponse(message.id, message.error)) return;
        if (this.state.awaitsResponse(message.id)) {
          const session = this.state.noteAgentResponse(message.id, message.result);
          if (session && ModeGuard.concerns(message.result)) {
            const check = () => this.modes.onSessionResult(message.id, session.sessionId, session.cwd, parsed as Record<string, unknown>, line);
            if (this.waiting) this.waiting.push(check);
            else check();
            return;
          }
        }
        break;
      case 'invalid_request':
        if (INTERCEPTED_METHODS.has(message.method)) {
          // Never forwarded undecided: a client might take it for a request all the same. Not
          // answered either: a response needs an id the agent could match (null would be another request's).
          this.deps.log(`acp-broker: a ${message.method} request whose id is neither a string, a number nor null was dropped`);
          return;
        }
        break;
      case 'other':
        break;
    }
    this.deps.toClient(line);
  }

  /** The connection is ending: every held request is settled (cancelled), never left hanging or allowed. */
  shutdown(): void {
    this.cancelHeld(() => true, 'shutdown');
    this.modes.shutdown();
  }

  /**
   * The editor is gone (its input ended) while the agent still runs: nobody can answer or be told
   * any more. Every request still open is settled before the agent's input is closed — permission
   * requests held or escalated are cancelled, held fs/terminal calls refused — so the agent gets
   * exactly one answer for each, and none of them an allow.
   */
  clientGone(): void {
    this.cancelHeld(() => true, 'client-gone');
    for (const held of this.heldEnforced) {
      held.settled = true;
      this.refuseEnforced(held.id, held.method, 'the editor disconnected before the broker could check this request');
    }
    this.heldEnforced.clear();
    for (const entry of this.forwarded.values()) {
      if (entry.settled) continue;
      entry.settled = true;
      this.answerAgent(entry.id, { outcome: 'cancelled' });
      this.record(entry, { decision: 'cancelled', outcome: 'cancelled', source: { type: 'cancelled', by: 'client-gone' } });
    }
    // Settled entries stay: an answer still arriving (stdout gone, stdin not) is dropped, not relayed.
  }

  /**
   * A line that is not JSON but names an intercepted method (or uses escapes that could): a lenient
   * client might still read a request in it (a BOM, a trailing comma), so it is never relayed; the
   * agent gets an error when the request's id can be read.
   */
  private refuseUnreadable(line: Buffer): void {
    const head = line.subarray(line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? 3 : 0);
    const { id: headId, method } = topLevelIdAndMethod(head.subarray(0, 4096));
    const id = headId !== undefined ? headId : trailingTopLevelId(head.subarray(Math.max(0, head.length - 4096)));
    this.deps.log(`acp-broker: an agent line that is not valid JSON${method ? ` but names ${method}` : ' but may hold an intercepted request'} was not relayed`);
    if (id === undefined || method === undefined || !INTERCEPTED_METHODS.has(method)) return;
    this.deps.toAgent(encode({ jsonrpc: '2.0', id, error: { code: RPC_ERRORS.invalidRequest, message: `acp-broker: this ${method} request is not valid JSON; it was not relayed` } }));
  }

  /** A JSON-RPC batch (ACP uses none) holding an intercepted request: not relayed, each such request refused. */
  private refuseBatch(batch: readonly unknown[]): void {
    this.deps.log('acp-broker: a JSON-RPC batch from the agent names an intercepted method; it was not relayed');
    for (const element of batch) {
      const message = classify(element);
      if (message.type !== 'request' || !INTERCEPTED_METHODS.has(message.method)) continue;
      this.deps.toAgent(encode({ jsonrpc: '2.0', id: message.id, error: { code: RPC_ERRORS.invalidRequest, message: `acp-broker: ${message.method} in a batch is not supported; it was not relayed` } }));
    }
  }

  /** Responses the broker wants to read: session results, and answers to its own mode switches. */
  private awaitingAgentResponses(): boolean {
    return this.state.hasPendingResponses() || this.modes.awaitsResponses();
  }

  heldCount(): number {
    return this.held.size;
  }

  private onSessionUpdate(params: unknown): void {
    const p = params as { sessionId?: unknown; update?: unknown } | undefined;
    const update = p?.update as Record<string, unknown> | undefined;
    if (typeof p?.sessionId !== 'string' || !update || typeof update !== 'object') return;
    if (update.sessionUpdate === 'current_mode_update' || update.sessionUpdate === 'config_option_update') {
      const sessionId = p.sessionId;
      const check = () => this.modes.onModeUpdate(sessionId, update, this.workspaceOf(sessionId));
      if (this.waiting) this.waiting.push(check);
      else check();
      return;
    }
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') return;
    // A session being loaded replays its history: those tool calls ran (or not) long ago.
    if (this.state.isLoading(p.sessionId)) return;
    const finished = this.state.noteToolCallUpdate(p.sessionId, update);
    if (finished && !finished.asked) this.noteUnprompted(p.sessionId, finished.finished);
    if (!finished) return;
    const workspace = this.workspaceOf(p.sessionId);
    this.state.shells.noteFinished(p.sessionId, finished.finished, this.shellEnv(workspace), (shellCwd) => this.factsOf(workspace, finished.finished, shellCwd));
  }

  /** An fs/terminal request that arrived before the engine was ready: held, and refusable meanwhile. */
  private holdEnforcedUntilReady(id: RpcId, method: string, params: unknown, line: Buffer): void {
    const held = { id, method, settled: false };
    this.heldEnforced.add(held);
    this.waiting!.push(() => {
      this.heldEnforced.delete(held);
      if (!held.settled) this.onEnforcedRequest(id, method, params, line);
    });
  }

  /** A permission request that arrived before the engine was ready: held, and cancellable meanwhile. */
  private holdUntilReady(id: RpcId, params: unknown, line: Buffer): void {
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
    const held: Held = { id, sessionId: typeof sessionId === 'string' ? sessionId : '', settled: false };
    const key = idKey(id);
    this.held.set(key, held);
    this.waiting!.push(() => {
      if (this.held.get(key) === held) this.held.delete(key);
      if (!held.settled) this.onPermissionRequest(id, params, line);
    });
  }

  /** Fail closed at the outermost seam: whatever goes wrong, the request is never allowed by us. */
  private onPermissionRequest(id: RpcId, params: unknown, line: Buffer): void {
    try {
      this.handlePermissionRequest(id, params, line);
    } catch (error) {
      this.deps.log(`acp-broker: internal error on a permission request; failing closed: ${(error as Error).stack ?? error}`);
      if (!this.deps.nonInteractive) return this.deps.toClient(line);
      const options = Array.isArray((params as { options?: unknown } | undefined)?.options) ? (params as { options: unknown[] }).options.filter(isOfferedOption) : [];
      const answer = answerFor('deny', options);
      this.answerAgent(id, answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' });
    }
  }

  private handlePermissionRequest(id: RpcId, params: unknown, line: Buffer): void {
    const started = performance.now();
    const p = params as { sessionId?: unknown; toolCall?: unknown; options?: unknown } | undefined;
    const options = Array.isArray(p?.options) ? p.options.filter(isOfferedOption) : [];
    if (typeof p?.sessionId !== 'string' || !p.toolCall || typeof p.toolCall !== 'object' || options.length === 0) {
      // Malformed: the broker cannot decide it, so the human (or the agent's own error handling) does.
      this.deps.log('acp-broker: malformed session/request_permission; forwarding it to the client undecided');
      return this.askOrFallback(id, undefined, options, line, undefined);
    }
    const sessionId = p.sessionId;
    const toolCall = p.toolCall as Record<string, unknown>;
    if (typeof toolCall.toolCallId === 'string') this.state.noteAsked(sessionId, toolCall.toolCallId);
    let decided: { facts: CallFacts; evaluation: Evaluation } | undefined;
    try {
      decided = this.decide(sessionId, this.state.mergedToolCall(sessionId, toolCall), true);
    } catch (error) {
      // Fail closed: an error never becomes an allow.
      this.deps.log(`acp-broker: error while deciding a permission request: ${(error as Error).stack ?? error}`);
    }
    if (!decided) return this.askOrFallback(id, sessionId, options, line, undefined);
    const { facts, evaluation } = decided;
    const toolCallId = typeof toolCall.toolCallId === 'string' ? toolCall.toolCallId : undefined;
    const call = { sessionId, toolCallId, facts, evaluation, started };
    if (evaluation.decision === 'allow' || evaluation.decision === 'deny') {
      const answer = answerFor(evaluation.decision, options);
      // Allowed, but the agent offers no one-shot allow: only a human may pick a persistent option —
      // or has already, when a grant (the human's own "always") allows it.
      const granted = answer.type === 'needs_human' && evaluation.source.type === 'grant' ? this.humanAnswer('allow', options) : undefined;
      const outcome = answer.type === 'outcome' ? answer.outcome : granted?.outcome === 'selected' ? granted : undefined;
      if (outcome) {
        this.answerAgent(id, outcome);
        this.record(call, { ...verdict(evaluation.decision, outcome), source: evaluation.source });
        return;
      }
    }
    if (!this.deps.nonInteractive) {
      this.escalate({ ...call, id, agentOptions: options, settled: false, offers: new Map() }, line);
      this.record(call, { decision: 'ask', outcome: 'escalated', source: { type: 'client' } });
      return;
    }
    this.askOrFallback(id, sessionId, options, line, call);
  }

  /**
   * Forward to the client and remember the request until it is answered. With a grants store the
   * broker's own "always" options are added (and the agent's replaced); without one the request goes
   * out byte-for-byte. With a timeout, an unanswered request gets the fallback and its dialog is withdrawn.
   */
  private escalate(entry: Forwarded, line: Buffer): void {
    let offers: ReadonlyMap<string, GrantOffer> = new Map();
    let out = line;
    if (this.deps.grants) {
      const policy = this.deps.policyFor(entry.facts.workspace);
      const escalation = escalationOptions({
        agentOptions: entry.agentOptions, facts: entry.facts, evaluation: entry.evaluation, scope: this.scopeFor(entry),
        keepAgentAlwaysOptions: policy.files.some((f) => f.keepAgentAlwaysOptions), sequence: ++this.escalations,
      });
      const message = parseLine(line) as { params: Record<string, unknown> };
      try {
        out = encode({ ...message, params: { ...message.params, options: escalation.options } });
        offers = escalation.offers;
      } catch {
        // Too deeply nested to re-encode (JSON.stringify recurses): forward it as sent, with only the
        // agent's own options, as a broker without grants would.
        this.deps.log('acp-broker: cannot re-encode an escalated request; forwarding it as sent');
      }
    }
    if (this.forwarded.size >= MAX_FORWARDED) this.forwarded.delete(this.forwarded.keys().next().value!);
    const forwarded: Forwarded = { ...entry, offers };
    this.forwarded.set(idKey(entry.id), forwarded);
    const timeoutMs = this.deps.escalationTimeoutMs;
    if (timeoutMs !== undefined) setTimeout(() => this.escalationTimedOut(forwarded), timeoutMs).unref();
    this.deps.toClient(out);
  }

  /** Nobody answered in time: the fallback, as if no human were there, and the dialog is withdrawn. */
  private escalationTimedOut(entry: Forwarded): void {
    if (entry.settled || this.forwarded.get(idKey(entry.id)) !== entry) return;
    entry.settled = true;
    const fallback = this.fallback(entry.sessionId);
    const answer = answerFor(fallback, entry.agentOptions);
    const outcome: PermissionOutcome = answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' };
    this.answerAgent(entry.id, outcome);
    this.deps.toClient(encode({ jsonrpc: '2.0', method: ACP.cancelRequest, params: { requestId: entry.id } }));
    this.record(entry, {
      ...verdict('deny', outcome), source: { type: 'timeout', fallback },
      extra: { reason: `nobody answered within ${Math.round((this.deps.escalationTimeoutMs ?? 0) / 1000)} s; fallback ${fallback}` },
    });
  }

  /**
   * The client answered an escalated request. A broker option, or an agent "always" option, becomes
   * a broker grant and the agent gets its one-shot option of the same polarity. Returns whether the
   * line was handled here (true) or should be forwarded unchanged (false).
   */
  private onClientAnswer(id: RpcId, result: unknown, line: Buffer): boolean {
    const entry = this.forwarded.get(idKey(id))!;
    this.forwarded.delete(idKey(id));
    if (entry.settled) return true;
    const outcome = (result as { outcome?: { outcome?: unknown; optionId?: unknown } } | undefined)?.outcome;
    const optionId = outcome?.outcome === 'selected' && typeof outcome.optionId === 'string' ? outcome.optionId : undefined;
    const agentOption = entry.agentOptions.find((o) => o.optionId === optionId);
    const offer = optionId === undefined ? undefined
      : entry.offers.get(optionId) ?? (agentOption ? offerForAgentAlways(agentOption, entry.facts, entry.evaluation, this.scopeFor(entry)) : undefined);
    if (!offer) {
      // An error answer (no result) settles the request too: the agent gets the client's error.
      const decision = outcome?.outcome === 'cancelled' || result === undefined ? 'cancelled'
        : agentOption?.kind.startsWith('allow') ? 'allow' : agentOption ? 'deny' : undefined;
      if (decision) this.auditClientAnswer(entry, decision, optionId, []);
      return false;
    }
    const grantIds = this.recordGrants(entry, offer);
    const final = this.humanAnswer(offer.decision, entry.agentOptions);
    this.answerAgent(entry.id, final);
    this.auditClientAnswer(entry, offer.decision === 'allow' ? 'allow' : 'deny', final.outcome === 'selected' ? final.optionId : undefined, grantIds);
    if (grantIds.length > 0) this.settleCoveredRequests(entry.sessionId);
    return true;
  }

  /**
   * The agent's option for a human's "always" answer: its one-shot option of that polarity, else —
   * the human did say "always" — its own "always" option; never an option it did not offer.
   */
  private humanAnswer(decision: 'allow' | 'deny', options: readonly OfferedOption[]): PermissionOutcome {
    const answer = answerFor(decision, options);
    if (answer.type === 'outcome') return answer.outcome;
    const always = optionOfKind(options, 'allow_always');
    return always ? { outcome: 'selected', optionId: always.optionId } : { outcome: 'cancelled' };
  }

  /** Narrower wins: any layer asking for project-scoped grants gets them. */
  private scopeFor(entry: Pick<Forwarded, 'facts'>): GrantScope {
    const files = this.deps.policyFor(entry.facts.workspace).files;
    return files.length === 0 || files.some((f) => f.grantScope === 'project') ? { type: 'project', dir: entry.facts.workspace } : { type: 'global' };
  }

  private recordGrants(entry: Forwarded, offer: GrantOffer): string[] {
    const store = this.deps.grants;
    if (!store) return [];
    const ttls = this.deps.policyFor(entry.facts.workspace).files.map((f) => f.grantTtlMs).filter((t): t is number => t !== undefined);
    const expiresAt = ttls.length > 0 ? new Date(this.deps.clock().getTime() + Math.min(...ttls)).toISOString() : undefined;
    const ids: string[] = [];
    for (const subject of offer.subjects) {
      try {
        const grant = store.add({ decision: offer.decision, subject, scope: offer.scope, source: 'client', label: offer.label, ...(expiresAt ? { expiresAt } : {}) });
        ids.push(grant.id);
      } catch (error) {
        // The answer still stands for this request; only the memory of it is lost. Say so.
        this.deps.log(`acp-broker: could not record the grant "${offer.label}": ${(error as Error).message}`);
      }
    }
    return ids;
  }

  /** A new grant may fully cover other requests still waiting for the client: answer them now. */
  private settleCoveredRequests(sessionId: string): void {
    for (const [key, entry] of this.forwarded) {
      if (entry.settled || entry.sessionId !== sessionId) continue;
      const evaluation = evaluate(this.deps.policyFor(entry.facts.workspace), entry.facts, { home: this.deps.home, canonicalize: this.deps.canonicalize, ...(this.lookup ? { grants: this.lookup } : {}) });
      if (evaluation.decision === 'ask') continue;
      const answer = answerFor(evaluation.decision, entry.agentOptions);
      if (answer.type !== 'outcome') continue;
      entry.settled = true;
      this.answerAgent(entry.id, answer.outcome);
      // Withdraw the dialog the client is still showing; its late answer will be dropped.
      this.deps.toClient(encode({ jsonrpc: '2.0', method: ACP.cancelRequest, params: { requestId: entry.id } }));
      this.record({ ...entry, evaluation }, { ...verdict(evaluation.decision, answer.outcome), source: evaluation.source });
      this.forwarded.set(key, entry);
    }
  }

  private auditClientAnswer(entry: Forwarded, decision: 'allow' | 'deny' | 'cancelled', optionId: string | undefined, grantIds: readonly string[]): void {
    this.record(entry, {
      decision, outcome: decision === 'allow' ? 'allowed' : decision === 'deny' ? 'denied' : 'cancelled', source: { type: 'client' },
      ...(optionId !== undefined ? { optionId } : {}), ...(grantIds.length > 0 ? { extra: { grants: grantIds } } : {}),
    });
  }

  /** One audit line for a call the broker judged. */
  private record(call: JudgedCall, how: {
    decision: AuditEventV1['decision']; outcome: Outcome; source: AnswerSource; optionId?: string; method?: string; extra?: Partial<AuditEventV1>;
  }): void {
    // When it happened and how long it took are taken now; the event is built when the audit work runs.
    const time = this.deps.clock();
    const latencyMs = performance.now() - call.started;
    this.state.shells.noteVerdict(call.sessionId, call.toolCallId, how.decision, call.facts);
    this.audit(() => decisionEvent({
      time, decisionId: this.deps.newDecisionId(), method: how.method ?? ACP.requestPermission,
      sessionId: call.sessionId, toolCallId: call.toolCallId, facts: call.facts, evaluation: call.evaluation,
      decision: how.decision, outcome: how.outcome, source: how.source, optionId: how.optionId, latencyMs, extra: how.extra,
    }));
  }

  /** Every audit event of the broker goes through here, so deferred or not they keep their order. */
  private audit(event: () => AuditEventV1): void {
    const defer = this.deps.deferAudit;
    if (defer) defer(() => this.deps.audit.write(event()));
    else this.deps.audit.write(event());
  }

  /**
   * `ask` when the call was judged (`call`) or could not be (`undefined`): to the editor when someone
   * can answer; else the policy's non-interactive fallback.
   */
  private askOrFallback(id: RpcId, sessionId: string | undefined, options: readonly OfferedOption[], line: Buffer, call: JudgedCall | undefined): void {
    if (!this.deps.nonInteractive) {
      this.deps.toClient(line);
      return;
    }
    const fallback = this.fallback(sessionId);
    const answer = answerFor(fallback, options);
    const outcome: PermissionOutcome = answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' };
    this.answerAgent(id, outcome);
    const { decision, outcome: result, optionId } = verdict('deny', outcome);
    if (call) {
      this.record(call, { decision, outcome: result, source: { type: 'fallback', fallback }, ...(optionId !== undefined ? { optionId } : {}) });
      return;
    }
    const time = this.deps.clock();
    this.audit(() => ({
      v: 1, event: 'decision', time: time.toISOString(), decisionId: this.deps.newDecisionId(),
      method: ACP.requestPermission, ...(sessionId ? { sessionId } : {}), decision, outcome: result, source: { type: 'fallback', fallback },
      reason: 'the request could not be evaluated; non-interactive fallback applied',
    }));
  }

  private fallback(sessionId: string | undefined): NonInteractiveFallback {
    return nonInteractiveFallback(this.deps.policyFor(this.workspaceOf(sessionId)));
  }

  private onEnforcedRequest(id: RpcId, method: string, params: unknown, line: Buffer): void {
    try {
      this.handleEnforcedRequest(id, method, params, line);
    } catch (error) {
      this.deps.log(`acp-broker: internal error checking ${method}; refusing it: ${(error as Error).message}`);
      this.refuseEnforced(id, method, 'the broker could not evaluate this request');
    }
  }

  private handleEnforcedRequest(id: RpcId, method: string, params: unknown, line: Buffer): void {
    const started = performance.now();
    const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
    const sessionId = typeof p.sessionId === 'string' ? p.sessionId : undefined;
    const problem = enforcedCallProblem(method, p);
    if (problem) return this.refuseEnforced(id, method, `cannot be checked: ${problem}`);
    const kind = ENFORCED_KIND[method]!;
    const call = mergeToolCall(undefined, kind === 'execute'
      ? { toolCallId: `${method}`, kind, rawInput: { command: p.command, args: p.args, cwd: p.cwd } }
      : { toolCallId: `${method}`, kind, locations: [{ path: p.path }], rawInput: { path: p.path } });
    let decided: { facts: CallFacts; evaluation: Evaluation } | undefined;
    try {
      decided = this.decide(sessionId, call);
    } catch (error) {
      this.deps.log(`acp-broker: error while checking ${method}: ${(error as Error).message}`);
    }
    if (!decided) {
      // Cannot evaluate: refuse rather than let an unchecked write or command through.
      return this.refuseEnforced(id, method, 'the broker could not evaluate this request');
    }
    const { facts, evaluation } = decided;
    const denied = evaluation.decision === 'deny';
    this.record({ sessionId, toolCallId: undefined, facts, evaluation, started },
      { method, decision: evaluation.decision, outcome: denied ? 'denied' : 'passed', source: evaluation.source });
    if (denied) return this.refuseEnforced(id, method, evaluation.reason, evaluation.source.type === 'rule' ? evaluation.source.ruleId : undefined);
    this.deps.toClient(line);
  }

  private refuseEnforced(id: RpcId, method: string, reason: string, ruleId?: string): void {
    this.deps.toAgent(encode({
      jsonrpc: '2.0', id,
      error: { code: RPC_ERRORS.deniedByPolicy, message: `${method} denied by acp-broker policy: ${reason}`, data: { ruleId: ruleId ?? null, reason } },
    }));
  }

  /** `agentShell`: the call may run in the agent's own shell, whose directory the session remembers. */
  private decide(sessionId: string | undefined, call: ToolCallState, agentShell = false): { facts: CallFacts; evaluation: Evaluation } {
    const workspace = this.workspaceOf(sessionId);
    const shellCwd = agentShell && sessionId !== undefined ? this.state.shells.cwdFor(sessionId, call, this.shellEnv(workspace)) : undefined;
    const facts = this.factsOf(workspace, call, shellCwd);
    const evaluation = evaluate(this.deps.policyFor(workspace), facts, { home: this.deps.home, canonicalize: this.deps.canonicalize, ...(this.lookup ? { grants: this.lookup } : {}) });
    return { facts, evaluation };
  }

  private factsOf(workspace: string, call: ToolCallState, shellCwd: readonly string[] | null | undefined): CallFacts {
    const { home, shell, canonicalize, fileExists } = this.deps;
    return extractFacts(call, { workspace, home, agent: this.state.agentName, shell, canonicalize, fileExists, shellCwd });
  }

  private shellEnv(workspace: string) {
    const { canonicalize } = this.deps;
    return { agent: this.state.agentName, workspace, canonicalize: (path: string) => { const resolved = canonicalize(path); return typeof resolved === 'string' ? resolved : path; } };
  }

  private workspaceOf(sessionId: string | undefined): string {
    return (sessionId !== undefined ? this.state.workspaceOf(sessionId) : undefined) ?? this.deps.fallbackWorkspace;
  }

  private noteUnprompted(sessionId: string, call: ToolCallState): void {
    const kind = typeof call.kind === 'string' ? call.kind : undefined;
    if (kind !== 'edit' && kind !== 'delete' && kind !== 'move' && kind !== 'execute') return;
    const time = this.deps.clock();
    this.audit(() => ({
      v: 1, event: 'unprompted', time: time.toISOString(), sessionId, toolCallId: call.toolCallId, kind,
      ...(typeof call.title === 'string' ? { title: call.title } : {}),
      reason: 'the agent ran this tool call without asking for permission',
    }));
    if (modePolicyOf(this.deps.policyFor(this.workspaceOf(sessionId))).unprompted === 'stop') this.stopTurn(sessionId, call);
  }

  /** `unprompted: stop`: the turn is cancelled, and the editor is told why in the agent's stream. */
  private stopTurn(sessionId: string, call: ToolCallState): void {
    const what = typeof call.title === 'string' && call.title !== '' ? call.title : String(call.kind);
    this.deps.log(`acp-broker: the agent ran \`${what}\` without asking; the policy says unprompted: stop, so its turn is cancelled`);
    this.deps.toAgent(encode({ jsonrpc: '2.0', method: ACP.sessionCancel, params: { sessionId } }));
    this.deps.toClient(encode({ jsonrpc: '2.0', method: ACP.sessionUpdate, params: { sessionId, update: {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: `\n[acp-broker] Stopped: the agent ran "${what}" without asking for permission, which this policy does not allow (unprompted: stop).\n` },
    } } }));
  }

  private answerAgent(id: RpcId, outcome: PermissionOutcome): void {
    this.deps.toAgent(encode({ jsonrpc: '2.0', id, result: { outcome } }));
  }

  private cancelHeld(which: (held: Held) => boolean, by: CancelledBy): void {
    for (const [key, held] of this.held) {
      if (held.settled || !which(held)) continue;
      held.settled = true;
      this.held.delete(key);
      if (by !== 'shutdown') this.answerAgent(held.id, { outcome: 'cancelled' });
      const time = this.deps.clock();
      this.audit(() => ({
        v: 1, event: 'decision', time: time.toISOString(), decisionId: this.deps.newDecisionId(),
        method: ACP.requestPermission, sessionId: held.sessionId, decision: 'cancelled', outcome: 'cancelled',
        source: { type: 'cancelled', by }, reason: `cancelled by ${by} while the broker held it`,
      }));
    }
  }
}

function parseLine(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
}
