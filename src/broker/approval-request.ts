import { maskEvent } from '../audit/mask.js';
import type { ToolCallState } from '../facts/tool-call.js';
import type { ApprovalOption, ApprovalRequest } from '../escalation/channel.js';
import type { OfferedOption } from '../protocol/acp.js';
import type { GrantOffer } from './escalation-options.js';
import type { JudgedCall } from './outbox.js';

/**
 * What a human is shown for one escalated request, secrets masked as in the audit log: who asks,
 * where, the command or paths, each item's verdict and rules, the edit's diff, and each option with
 * what a broker "always" option would remember.
 */
export function approvalRequest(input: {
  approvalId: string; call: JudgedCall; sessionId: string; toolCall: ToolCallState;
  options: readonly OfferedOption[]; offers: ReadonlyMap<string, GrantOffer>; deadline: Date | undefined;
}): ApprovalRequest {
  const { facts, evaluation } = input.call;
  const options: ApprovalOption[] = input.options.map((option) => {
    const offer = input.offers.get(option.optionId);
    return offer ? { ...option, covers: offer.label } : option;
  });
  const request: ApprovalRequest = {
    approvalId: input.approvalId, agent: facts.agent, workspace: facts.workspace, sessionId: input.sessionId,
    kind: facts.kind, title: facts.title, command: facts.shellLine,
    paths: facts.paths.filter((p) => !p.denyOnly).map((p) => ({ path: p.path, access: p.access })),
    items: evaluation.items.map((i) => ({ item: i.label, decision: i.decision ?? null, rules: i.matches.map((m) => m.ruleId) })),
    reason: evaluation.reason, diffs: diffsOf(input.toolCall), options,
    deadline: input.deadline?.toISOString(),
  };
  return maskEvent(request) as ApprovalRequest;
}

function diffsOf(call: ToolCallState): ApprovalRequest['diffs'] {
  const diffs: { path: string; oldText: string | null; newText: string }[] = [];
  for (const entry of Array.isArray(call.content) ? call.content : []) {
    const d = entry as { type?: unknown; path?: unknown; oldText?: unknown; newText?: unknown } | null;
    if (d?.type !== 'diff' || typeof d.path !== 'string' || typeof d.newText !== 'string') continue;
    diffs.push({ path: d.path, oldText: typeof d.oldText === 'string' ? d.oldText : null, newText: d.newText });
  }
  return diffs;
}
