/**
 * Session modes cannot switch the policy off (the modes handler, modes-handler.ts, feeds this guard). A mode the policy forbids (modes.ts) is:
 * - refused when the editor asks for it (`session/set_mode`, or a mode-category
 *   `session/set_config_option`): a JSON-RPC error, never forwarded to the agent;
 * - left by the broker itself when a session starts in it (session/new, load, resume): the broker
 *   sets a mode that asks before the editor sees the session, or refuses the session when none is
 *   offered; forbidden modes are removed from what the editor is offered;
 * - left again when the agent reports that it switched into one (`current_mode_update`).
 */
import { modeEvent } from '../audit/event.js';
import { modePolicyOf, type ModePolicy } from '../policy/modes.js';
import type { PolicySet } from '../policy/types.js';
import { encode, idKey, RPC_ERRORS, type RpcId } from '../protocol/jsonrpc.js';
import type { Outbox } from './outbox.js';

export interface ModeGuardDeps {
  /** The policy for a workspace ('' when the session is unknown). */
  readonly policyFor: (workspace: string) => PolicySet;
  readonly outbox: Outbox;
  readonly log: (message: string) => void;
}

/** What a session offers: its mode ids, and the config option (if any) that carries the mode. */
interface Offered {
  readonly modes: readonly string[];
  readonly configId: string | undefined;
  /** The session has a `modes` object (set with session/set_mode) rather than only a config option. */
  readonly viaSetMode: boolean;
}

export const SET_MODE = 'session/set_mode';
export const SET_CONFIG_OPTION = 'session/set_config_option';
const REQUEST_ID_PREFIX = 'acp-broker/mode-';

export class ModeGuard {
  private readonly offered = new Map<string, Offered>();
  private readonly switches = new Map<string, (ok: boolean) => void>();
  private sent = 0;

  constructor(private readonly deps: ModeGuardDeps) {}

  /** Whether a session result offers modes at all (only those wait for the policy). */
  static concerns(result: unknown): boolean {
    const r = asRecord(result);
    return r !== undefined && offeredModes(r) !== undefined;
  }

  awaitsResponses(): boolean {
    return this.switches.size > 0;
  }

  /**
   * A client request that sets a mode: true when the guard answered it itself (a forbidden mode,
   * or a policy not loaded yet), so it must not be forwarded.
   */
  onClientRequest(method: string, id: RpcId, params: unknown, workspace: string | undefined, policyReady: boolean): boolean {
    const p = asRecord(params);
    const sessionId = typeof p?.sessionId === 'string' ? p.sessionId : undefined;
    const mode = method === SET_MODE ? p?.modeId : this.isModeOption(sessionId, p?.configId) ? p?.value : undefined;
    if (typeof mode !== 'string') return false;
    if (!policyReady) {
      this.refuseClient(id, 'acp-broker is still loading its policy; set the mode again in a moment');
      return true;
    }
    const policy = this.policy(workspace);
    if (!policy.forbids(mode)) return false;
    const reason = `the policy forbids the mode \`${mode}\` (${policy.sourceOf(mode)}): in it the agent would act without asking`;
    this.refuseClient(id, `acp-broker: ${reason}`);
    this.record(sessionId, mode, 'deny', `the editor asked for a forbidden mode: ${reason}`);
    return true;
  }

  /**
   * The agent's result for session/new, load or resume. Forwarded at once (forbidden modes taken out
   * of the offer), after the broker has moved the session to a mode that asks, or refused.
   */
  onSessionResult(id: RpcId, sessionId: string | undefined, workspace: string, message: Record<string, unknown>, line: Buffer): void {
    const result = asRecord(message.result);
    const session = sessionId ?? (typeof result?.sessionId === 'string' ? result.sessionId : undefined);
    const offered = result ? offeredModes(result) : undefined;
    if (!result || !offered || session === undefined) return this.deps.outbox.toClient(line);
    this.offered.set(session, offered);
    const policy = this.policy(workspace);
    const current = currentMode(result);
    const forward = (mode: string | undefined) => this.deps.outbox.toClient(encode({ ...message, result: withoutForbidden(result, policy, mode) }));
    if (current === undefined || !policy.forbids(current)) {
      if (offered.modes.some((mode) => policy.forbids(mode))) return forward(current);
      return this.deps.outbox.toClient(line);
    }
    const target = policy.safeMode(offered.modes);
    if (target === undefined) {
      this.refuseClient(id, `acp-broker: the session starts in the mode \`${current}\`, which the policy forbids (${policy.sourceOf(current)}), and offers no other mode`);
      this.record(session, current, 'deny', 'the session started in a forbidden mode and offers no other: refused');
      return;
    }
    this.switchMode(session, offered, target, (ok) => {
      if (!ok) {
        this.refuseClient(id, `acp-broker: the session starts in the forbidden mode \`${current}\` and the agent refused to leave it`);
        this.record(session, current, 'deny', `the session started in a forbidden mode; switching it to \`${target}\` failed: refused`);
        return;
      }
      this.deps.log(`acp-broker: the session started in the mode \`${current}\`, which the policy forbids; moved it to \`${target}\``);
      this.record(session, target, 'allow', `the session started in the forbidden mode \`${current}\`; the broker moved it to \`${target}\``);
      forward(target);
    });
  }

  /** `current_mode_update` / `config_option_update` from the agent: a forbidden mode is left again. */
  onModeUpdate(sessionId: string, update: Record<string, unknown>, workspace: string): void {
    let mode: string | undefined;
    if (update.sessionUpdate === 'current_mode_update' && typeof update.currentModeId === 'string') mode = update.currentModeId;
    if (update.sessionUpdate === 'config_option_update') {
      const offered = offeredModes({ configOptions: update.configOptions });
      if (offered) this.offered.set(sessionId, { ...offered, viaSetMode: this.offered.get(sessionId)?.viaSetMode ?? false });
      mode = currentMode({ configOptions: update.configOptions });
    }
    if (mode === undefined) return;
    const policy = this.policy(workspace);
    if (!policy.forbids(mode)) return;
    const offered = this.offered.get(sessionId);
    const target = offered ? policy.safeMode(offered.modes) : undefined;
    if (!offered || target === undefined) {
      this.deps.log(`acp-broker: the agent switched the session into the forbidden mode \`${mode}\` and offers no other; cancelling its turn`);
      this.record(sessionId, mode, 'deny', 'the agent switched into a forbidden mode; its turn was cancelled');
      this.deps.outbox.toAgent(encode({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } }));
      return;
    }
    this.switchMode(sessionId, offered, target, (ok) => {
      this.deps.log(`acp-broker: the agent switched the session into the forbidden mode \`${mode}\`; ${ok ? `moved it back to \`${target}\`` : 'it refused to leave it; cancelling its turn'}`);
      this.record(sessionId, mode, 'deny', ok ? `the agent switched into a forbidden mode; the broker moved it to \`${target}\`` : 'the agent switched into a forbidden mode and refused to leave it; turn cancelled');
      if (!ok) this.deps.outbox.toAgent(encode({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } }));
    });
  }

  /** The agent's answer to a request the guard sent: true when it was one (it is not forwarded). */
  onAgentResponse(id: RpcId, error: unknown): boolean {
    const done = this.switches.get(idKey(id));
    if (!done) return false;
    this.switches.delete(idKey(id));
    done(error === undefined);
    return true;
  }

  /** The connection ends: switches still waiting count as failed. */
  shutdown(): void {
    for (const done of this.switches.values()) done(false);
    this.switches.clear();
  }

  private switchMode(sessionId: string, offered: Offered, target: string, done: (ok: boolean) => void): void {
    const id = `${REQUEST_ID_PREFIX}${++this.sent}`;
    this.switches.set(idKey(id), done);
    const request = offered.viaSetMode || offered.configId === undefined
      ? { method: SET_MODE, params: { sessionId, modeId: target } }
      : { method: SET_CONFIG_OPTION, params: { sessionId, configId: offered.configId, value: target } };
    this.deps.outbox.toAgent(encode({ jsonrpc: '2.0', id, ...request }));
  }

  private isModeOption(sessionId: string | undefined, configId: unknown): boolean {
    if (typeof configId !== 'string') return false;
    const known = sessionId === undefined ? undefined : this.offered.get(sessionId)?.configId;
    // Unknown session or option: an option named `mode` is taken for one (fail closed).
    return known === configId || configId.toLowerCase() === 'mode';
  }

  private policy(workspace: string | undefined): ModePolicy {
    return modePolicyOf(this.deps.policyFor(workspace ?? ''));
  }

  private refuseClient(id: RpcId, message: string): void {
    this.deps.outbox.toClient(encode({ jsonrpc: '2.0', id, error: { code: RPC_ERRORS.deniedByPolicy, message } }));
  }

  private record(sessionId: string | undefined, mode: string, decision: 'allow' | 'deny', reason: string): void {
    const time = this.deps.outbox.clock();
    this.deps.outbox.audit(() => modeEvent({ time, sessionId, mode, decision, reason }));
  }
}

/** The modes a session result offers (`modes.availableModes`, or a config option of category `mode`). */
function offeredModes(result: Record<string, unknown>): Offered | undefined {
  const modes = asRecord(result.modes);
  const available = Array.isArray(modes?.availableModes)
    ? modes.availableModes.map((m) => asRecord(m)?.id).filter((id): id is string => typeof id === 'string')
    : [];
  const option = modeOption(result.configOptions);
  const fromOption = option ? optionValues(option) : [];
  if (available.length === 0 && fromOption.length === 0) return undefined;
  return { modes: available.length > 0 ? available : fromOption, configId: typeof option?.id === 'string' ? option.id : undefined, viaSetMode: available.length > 0 };
}

function currentMode(result: Record<string, unknown>): string | undefined {
  const current = asRecord(result.modes)?.currentModeId;
  if (typeof current === 'string') return current;
  const value = modeOption(result.configOptions)?.currentValue;
  return typeof value === 'string' ? value : undefined;
}

/** The result with forbidden modes taken out of the offer, and the current mode set to `mode`. */
function withoutForbidden(result: Record<string, unknown>, policy: ModePolicy, mode: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result };
  const modes = asRecord(result.modes);
  if (modes) {
    out.modes = {
      ...modes,
      ...(mode !== undefined ? { currentModeId: mode } : {}),
      ...(Array.isArray(modes.availableModes) ? { availableModes: modes.availableModes.filter((m) => !policy.forbids(String(asRecord(m)?.id))) } : {}),
    };
  }
  if (Array.isArray(result.configOptions)) {
    out.configOptions = result.configOptions.map((option) => {
      const o = asRecord(option);
      if (o?.category !== 'mode' || !Array.isArray(o.options)) return option;
      return {
        ...o,
        ...(mode !== undefined && optionValues(o).includes(mode) ? { currentValue: mode } : {}),
        options: o.options.filter((entry) => !policy.forbids(String(asRecord(entry)?.value))),
      };
    });
  }
  return out;
}

function modeOption(configOptions: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(configOptions)) return undefined;
  return configOptions.map(asRecord).find((option) => option?.category === 'mode');
}

function optionValues(option: Record<string, unknown>): string[] {
  return Array.isArray(option.options)
    ? option.options.map((entry) => asRecord(entry)?.value).filter((value): value is string => typeof value === 'string')
    : [];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}
