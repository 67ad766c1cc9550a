/**
 * What exec reports of the agent's `session/update`s and of the broker's audit records: each turned
 * into its `ExecEvent` (events.ts), masked as the audit log is (the docs promise it). Pure: the time
 * is given.
 */
import type { AuditEvent } from '../audit/event.js';
import { maskEvent, maskText } from '../audit/mask.js';
import type { DecisionOutputEvent, ExecEvent, ToolCallEvent } from './events.js';

/** A decision's audit event as its exec event, masked; other audit events (modes, problems) have none. */
export function decisionFromAudit(event: AuditEvent): DecisionOutputEvent | undefined {
  if (event.event !== 'decision') return undefined;
  const masked = maskEvent(event) as typeof event;
  const rule = masked.source.type === 'rule' ? masked.source.ruleId
    // An ask that fell back: the rule that asked is the first of those voting the policy's verdict.
    : masked.items?.find((item) => item.decision === masked.policyDecision && item.rules.length > 0)?.rules[0];
  return {
    v: 1, type: 'decision', time: masked.time, decisionId: masked.decisionId, method: masked.method,
    ...optional('toolCallId', masked.toolCallId), ...optional('kind', masked.kind), ...optional('title', masked.title),
    ...optional('command', masked.command), ...optional('policyDecision', masked.policyDecision),
    decision: masked.decision, outcome: masked.outcome, source: masked.source,
    ...optional('rule', rule), ...optional('reason', masked.reason),
  };
}

const STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed', 'failed']);

/** The events one `session/update` notification's `update` makes (none for kinds exec does not report). */
export function eventsFromUpdate(update: unknown, time: string): ExecEvent[] {
  if (typeof update !== 'object' || update === null) return [];
  const u = update as Record<string, unknown>;
  switch (u['sessionUpdate']) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const content = u['content'] as { type?: unknown; text?: unknown } | undefined;
      if (content?.type !== 'text' || typeof content.text !== 'string') return [];
      return [{ v: 1, type: u['sessionUpdate'] === 'agent_message_chunk' ? 'text' : 'thought', time, text: content.text }];
    }
    case 'tool_call':
    case 'tool_call_update': {
      if (typeof u['toolCallId'] !== 'string') return [];
      const locations = Array.isArray(u['locations'])
        ? (u['locations'] as unknown[]).flatMap((l) => {
          const loc = l as { path?: unknown; line?: unknown };
          return typeof loc?.path === 'string' ? [{ path: loc.path, ...(typeof loc.line === 'number' ? { line: loc.line } : {}) }] : [];
        })
        : undefined;
      const event: ToolCallEvent = {
        v: 1, type: u['sessionUpdate'], time, toolCallId: u['toolCallId'],
        ...(typeof u['title'] === 'string' ? { title: maskText(u['title']) } : {}),
        ...(typeof u['kind'] === 'string' ? { kind: u['kind'] } : {}),
        ...(typeof u['status'] === 'string' && STATUSES.has(u['status']) ? { status: u['status'] as ToolCallEvent['status'] } : {}),
        ...(locations ? { locations } : {}),
      };
      return [event];
    }
    case 'plan': {
      if (!Array.isArray(u['entries'])) return [];
      const entries = (u['entries'] as unknown[]).flatMap((e) => {
        const entry = e as { content?: unknown; priority?: unknown; status?: unknown };
        return typeof entry?.content === 'string'
          ? [{ content: entry.content, priority: String(entry.priority ?? ''), status: String(entry.status ?? '') }] : [];
      });
      return [{ v: 1, type: 'plan', time, entries }];
    }
    default:
      return [];
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
