/**
 * What exec reports of the agent's `session/update`s, and of the broker's audit records: each turned
 * into its `ExecEvent` (events.ts). Pure: the time is given.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { AuditEvent } from '../audit/event.js';
import { maskEvent } from '../audit/mask.js';
import type { DecisionOutputEvent, ExecEvent } from './events.js';

/** The event for one update, or undefined for updates exec does not report (modes, commands, usage…). */
export function eventOfUpdate(update: SessionUpdate, time: string): ExecEvent | undefined {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      if (update.content.type !== 'text') return undefined;
      return { v: 1, time, type: update.sessionUpdate === 'agent_message_chunk' ? 'text' : 'thought', text: update.content.text };
    }
    case 'tool_call':
    case 'tool_call_update': {
      const locations = update.locations?.map((l) => ({ path: l.path, ...(typeof l.line === 'number' ? { line: l.line } : {}) }));
      return {
        v: 1, time, type: update.sessionUpdate, toolCallId: update.toolCallId,
        ...(typeof update.title === 'string' ? { title: update.title } : {}),
        ...(typeof update.kind === 'string' ? { kind: update.kind } : {}),
        ...(typeof update.status === 'string' ? { status: update.status } : {}),
        ...(locations && locations.length > 0 ? { locations } : {}),
      };
    }
    case 'plan':
      return { v: 1, time, type: 'plan', entries: update.entries.map((e) => ({ content: e.content, priority: e.priority, status: e.status })) };
    default:
      return undefined;
  }
}

/** The event for one audit record: decisions only, masked exactly as the audit line is. */
export function eventOfAudit(event: AuditEvent): DecisionOutputEvent | undefined {
  if (event.event !== 'decision') return undefined;
  const masked = maskEvent(event) as typeof event;
  const source = masked.source;
  return {
    v: 1, time: masked.time, type: 'decision', decisionId: masked.decisionId, method: masked.method,
    ...(masked.toolCallId !== undefined ? { toolCallId: masked.toolCallId } : {}),
    ...(masked.kind !== undefined ? { kind: masked.kind } : {}),
    ...(masked.title !== undefined ? { title: masked.title } : {}),
    ...(masked.command !== undefined ? { command: masked.command } : {}),
    ...(masked.policyDecision !== undefined ? { policyDecision: masked.policyDecision } : {}),
    decision: masked.decision, outcome: masked.outcome, source,
    ...(source.type === 'rule' ? { rule: source.ruleId } : {}),
    ...(masked.reason !== undefined ? { reason: masked.reason } : {}),
  };
}
