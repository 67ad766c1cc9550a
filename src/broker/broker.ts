/**
 * The broker's view of one editor ⇄ agent connection: the router with the standard handlers, one
 * per concern, around one decision function. Every line is relayed unchanged except agent→client
 * permission requests it answers itself and enforced fs/terminal calls it refuses. The flow of one
 * request is mapped in src/README.md.
 */
import type { AuditSink } from '../audit/sink.js';
import type { ChunkScanner } from '../protocol/line-splitter.js';
import type { EscalationChannel } from '../escalation/channel.js';
import { SessionState } from '../session/sessions.js';
import { Cancellation } from './cancellation.js';
import { EditorChannel } from './editor-channel.js';
import { EnforcedCalls } from './enforced-call-handler.js';
import { Escalations } from './escalations.js';
import type { Handler, Interest } from './handler.js';
import { Judge, type DecisionDeps } from './judge.js';
import { ModeGuard } from './mode-guard.js';
import { ModesHandler } from './modes-handler.js';
import { Outbox } from './outbox.js';
import { PermissionRequests } from './permission-requests.js';
import { ReadinessGate } from './readiness.js';
import { Router, type Direction } from './router.js';
import { SessionObserver } from './session-observer.js';

export type { DecisionDeps } from './judge.js';

export interface BrokerDeps extends DecisionDeps {
  readonly audit: AuditSink;
  /**
   * Where the broker's audit work runs: at once by default. The relay passes a queue that runs it
   * right after the message in hand is handled, once the agent's answer has left: everything before
   * that write is on the agent's round trip.
   */
  readonly deferAudit?: (work: () => void) => void;
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
  /** Escalation channels besides the editor (the approvals daemon). */
  readonly channels?: readonly EscalationChannel[];
}

export class Broker {
  readonly state = new SessionState();
  private readonly router: Router;
  private readonly gate: ReadinessGate;
  private readonly escalations: Escalations;
  private readonly guard: ModeGuard;
  readonly agentScanner: ChunkScanner;
  readonly clientScanner: ChunkScanner;

  constructor(deps: BrokerDeps) {
    const { log } = deps;
    const judge = new Judge(deps, this.state);
    const outbox = new Outbox({
      toAgent: deps.toAgent, toClient: deps.toClient, audit: deps.audit, deferAudit: deps.deferAudit, clock: deps.clock, newDecisionId: deps.newDecisionId,
      onVerdict: (call, decision) => this.state.shells.noteVerdict(call.sessionId, call.toolCallId, decision, call.facts),
    });
    this.gate = new ReadinessGate(deps.decisionsReady, log);
    this.guard = new ModeGuard({ policyFor: (workspace) => deps.policyFor(workspace || deps.fallbackWorkspace), outbox, log });
    // With nobody at the editor, only the other channels can take an escalation; without them, the fallback.
    const editor = deps.nonInteractive ? undefined : new EditorChannel(outbox);
    this.escalations = new Escalations({ outbox, judge, log, timeoutMs: deps.escalationTimeoutMs }, [...(editor ? [editor] : []), ...(deps.channels ?? [])]);
    const { state, gate, guard, escalations } = this;
    const handlers: Handler[] = [
      new ModesHandler({ guard, gate, state, judge }),
      new SessionObserver({ state, judge, guard, gate, outbox, log }),
      new PermissionRequests({ outbox, judge, state, escalations, nonInteractive: deps.nonInteractive, log }),
      new EnforcedCalls({ outbox, judge, log }),
      new Cancellation({ gate, escalations }),
      ...(editor ? [editor] : []),
    ];
    this.router = new Router(handlers, this.gate, outbox, log);
    this.agentScanner = this.router.agentScanner;
    this.clientScanner = this.router.clientScanner;
  }

  /** A line from the editor (client → agent). */
  fromClient(line: Buffer): void {
    this.router.fromClient(line);
  }

  /**
   * A client line that already reached the agent (forwarded before the relay loaded): its facts are
   * noted as if it had come through here. Nothing can be waiting on the client yet at that point.
   */
  observeClient(line: Buffer): void {
    this.router.observeClient(line);
  }

  /** A line from the agent (agent → client). */
  fromAgent(line: Buffer): void {
    this.router.fromAgent(line);
  }

  /** The connection is ending: every held request is settled (cancelled), never left hanging or allowed. */
  shutdown(): void {
    this.router.shutdown();
    this.guard.shutdown();
    this.escalations.shutdown();
  }

  /**
   * The editor is gone (its input ended) while the agent still runs: nobody can answer or be told
   * any more. Every request still open is settled before the agent's input is closed — permission
   * requests held or escalated are cancelled, held fs/terminal calls refused — so the agent gets
   * exactly one answer for each, and none of them an allow.
   */
  clientGone(): void {
    this.router.clientGone();
    this.escalations.clientGone();
  }

  /** What the standard handlers declared they react to, per direction. */
  interests(direction: Direction): readonly Interest[] {
    return this.router.interests(direction);
  }

  /** Requests waiting for a human's answer. */
  escalatedCount(): number {
    return this.escalations.openCount();
  }

  /** Requests held until decisions can be made. */
  heldCount(): number {
    return this.gate.heldCount();
  }
}
