import { dropOldest } from '../core/bounded-collections.js';
import { idKey, type RpcId } from '../protocol/jsonrpc.js';
import { mergeToolCall, type ToolCallState } from '../facts/tool-call.js';
import { SessionShells } from './shell-state.js';

const MAX_TRACKED_TOOL_CALLS = 10_000;

export interface SessionRequest {
  readonly method: 'session/new' | 'session/load' | 'session/resume';
  readonly cwd: string;
  readonly sessionId: string | undefined;
}
const MAX_PENDING_REQUESTS = 10_000;

/**
 * What the broker remembers about the conversation: session → cwd, the agent's name, and the merge of
 * every tool_call / tool_call_update per (session, toolCallId). Bounded: finished tool calls are evicted
 * and the oldest entries go first when an agent never finishes any.
 */
export class SessionState {
  agentName: string | undefined;
  /** Where each session's persistent shell is (agents whose shell keeps its directory between calls). */
  readonly shells = new SessionShells();
  private readonly cwdBySession = new Map<string, string>();
  /** session/new, load and resume requests waiting for the agent's result: their method, cwd and session. */
  private readonly pendingSessionRequests = new Map<string, SessionRequest>();
  private readonly pendingInitialize = new Set<string>();
  private readonly toolCalls = new Map<string, ToolCallState>();
  private readonly asked = new Set<string>();

  /** Client → agent requests that tell us about sessions. */
  noteClientRequest(method: string, id: RpcId, params: unknown): void {
    const p = asRecord(params);
    if (method === 'initialize') {
      boundedAdd(this.pendingInitialize, idKey(id));
    } else if (method === 'session/new' && typeof p?.cwd === 'string') {
      this.notePending(id, { method, cwd: p.cwd, sessionId: undefined });
    } else if ((method === 'session/load' || method === 'session/resume') && typeof p?.sessionId === 'string' && typeof p.cwd === 'string') {
      this.cwdBySession.set(p.sessionId, p.cwd);
      this.notePending(id, { method, cwd: p.cwd, sessionId: p.sessionId });
    }
  }

  private notePending(id: RpcId, request: SessionRequest): void {
    if (this.pendingSessionRequests.size >= MAX_PENDING_REQUESTS) this.pendingSessionRequests.clear();
    this.pendingSessionRequests.set(idKey(id), request);
  }

  /** Whether a response from the agent with this id is one we want to read. */
  awaitsResponse(id: RpcId): boolean {
    const key = idKey(id);
    return this.pendingSessionRequests.has(key) || this.pendingInitialize.has(key);
  }

  hasPendingResponses(): boolean {
    return this.pendingSessionRequests.size > 0 || this.pendingInitialize.size > 0;
  }

  /** Notes what a response tells; for a session request, returns that request with the session's id. */
  noteAgentResponse(id: RpcId, result: unknown): SessionRequest | undefined {
    const key = idKey(id);
    const r = asRecord(result);
    if (this.pendingInitialize.delete(key)) {
      const info = asRecord(r?.agentInfo);
      if (typeof info?.name === 'string') this.agentName = info.name;
      return undefined;
    }
    const request = this.pendingSessionRequests.get(key);
    if (request === undefined) return undefined;
    this.pendingSessionRequests.delete(key);
    const sessionId = request.sessionId ?? (typeof r?.sessionId === 'string' ? r.sessionId : undefined);
    if (sessionId !== undefined) this.cwdBySession.set(sessionId, request.cwd);
    return { ...request, sessionId };
  }

  /** A `session/load` of this session waits for the agent's result (the agent replays its history meanwhile). */
  isLoading(sessionId: string): boolean {
    for (const request of this.pendingSessionRequests.values()) {
      if (request.method === 'session/load' && request.sessionId === sessionId) return true;
    }
    return false;
  }

  workspaceOf(sessionId: string): string | undefined {
    return this.cwdBySession.get(sessionId);
  }

  /**
   * A tool_call / tool_call_update session update. Returns the final merged state when the update
   * finishes the tool call (it is evicted then), so the caller can note calls that never asked.
   */
  noteToolCallUpdate(sessionId: string, update: Record<string, unknown>): { finished: ToolCallState; asked: boolean } | undefined {
    if (typeof update.toolCallId !== 'string') return undefined;
    const key = toolKey(sessionId, update.toolCallId);
    if (update.status === 'completed' || update.status === 'failed') {
      const finished = mergeToolCall(this.toolCalls.get(key), update);
      this.toolCalls.delete(key);
      const asked = this.asked.delete(key);
      return { finished, asked };
    }
    const merged = mergeToolCall(this.toolCalls.get(key), update);
    this.toolCalls.delete(key); // re-insert: Map order is our LRU order
    this.toolCalls.set(key, merged);
    dropOldest(this.toolCalls, MAX_TRACKED_TOOL_CALLS);
    return undefined;
  }

  /** A permission request (or an enforced fs/terminal call) was seen for this tool call. */
  noteAsked(sessionId: string, toolCallId: string): void {
    const key = toolKey(sessionId, toolCallId);
    this.asked.add(key);
    dropOldest(this.asked, MAX_TRACKED_TOOL_CALLS);
  }

  /** The merged state of a tool call with the permission request's own toolCall on top. */
  mergedToolCall(sessionId: string, requestToolCall: Record<string, unknown>): ToolCallState {
    const id = typeof requestToolCall.toolCallId === 'string' ? requestToolCall.toolCallId : '';
    return mergeToolCall(this.toolCalls.get(toolKey(sessionId, id)), requestToolCall);
  }

  trackedToolCalls(): number {
    return this.toolCalls.size;
  }
}

function toolKey(sessionId: string, toolCallId: string): string {
  return `${sessionId}\u0000${toolCallId}`;
}

function boundedAdd(set: Set<string>, key: string): void {
  if (set.size >= MAX_PENDING_REQUESTS) set.clear();
  set.add(key);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}
