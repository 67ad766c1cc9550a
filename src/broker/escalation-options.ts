import { basename } from 'node:path';
import { NO_WORKSPACE, type CallFacts } from '../core/facts.js';
import { describeSubject } from '../grants/describe.js';
import type { GrantScope, GrantSubject } from '../grants/grant.js';
import type { OfferedOption, PermissionOption } from '../protocol/acp.js';
import type { Evaluation } from '../policy/evaluate.js';
import { subjectFor } from './grant-items.js';

/** What one of the broker's own options would remember. */
export interface GrantOffer {
  readonly decision: 'allow' | 'deny';
  readonly subjects: readonly GrantSubject[];
  readonly scope: GrantScope;
  readonly label: string;
}

export interface Escalation {
  /** Options the client is shown: the agent's (its *_always ones unless kept) plus the broker's. */
  readonly options: readonly OfferedOption[];
  /** The broker's option ids → what choosing them records. */
  readonly offers: ReadonlyMap<string, GrantOffer>;
}

export const BROKER_OPTION_PREFIX = 'acp-broker:';

/**
 * What an "always" answer would remember: the items that needed a human (not those the policy
 * already allows), each named precisely — or undefined when any cannot be, or the line could not
 * be analysed, since a grant must never cover more than the human saw.
 */
function subjectsInQuestion(facts: CallFacts, evaluation: Evaluation): { subjects: GrantSubject[]; managedAsks: boolean } | undefined {
  const inQuestion = evaluation.items.filter((i) => i.decision !== 'allow');
  const subjects = inQuestion.map((i) => subjectFor(i.item, facts));
  if (evaluation.unresolvable.length > 0 || facts.workspace === NO_WORKSPACE || inQuestion.length === 0 || subjects.some((s) => s === undefined)) return undefined;
  const managedAsks = inQuestion.some((i) => i.matches.some((m) => m.layer === 'managed' && m.effective === 'ask'));
  return { subjects: subjects as GrantSubject[], managedAsks };
}

/**
 * The options shown when a request is escalated to a human. The broker's "always" options cover
 * exactly the items that needed a human (not those the policy already allows), and are offered only
 * when every such item can be named precisely — never for a line the broker could not analyse.
 */
export function escalationOptions(input: {
  agentOptions: readonly OfferedOption[];
  facts: CallFacts;
  evaluation: Evaluation;
  keepAgentAlwaysOptions: boolean;
  scope: GrantScope;
  sequence: number;
}): Escalation {
  const { facts, evaluation } = input;
  // The agent's own "always" options go, unless kept by policy or the agent has no one-shot option
  // of that polarity (then removing it would take the choice away from the human).
  const hasOnce = (kind: 'allow_once' | 'reject_once') => input.agentOptions.some((o) => o.kind === kind);
  const kept = input.agentOptions.filter((o) => input.keepAgentAlwaysOptions
    || (o.kind === 'allow_always' ? !hasOnce('allow_once') : o.kind === 'reject_always' ? !hasOnce('reject_once') : true));
  const offers = new Map<string, GrantOffer>();
  const question = subjectsInQuestion(facts, evaluation);
  if (!question) return { options: kept, offers };
  const named = question.subjects;
  const what = named.map((s) => describeSubject(s, facts.workspace)).join(', ');
  const where = input.scope.type === 'project' ? ` in ${basename(input.scope.dir) || input.scope.dir}` : ' everywhere';
  const brokerOptions: PermissionOption[] = [];
  // A grant cannot loosen the managed layer, so offering "always allow" there would be a lie.
  const canAllow = !question.managedAsks && facts.kind !== 'switch_mode' && input.agentOptions.some((o) => o.kind === 'allow_once' || o.kind === 'allow_always');
  if (canAllow) {
    const optionId = `${BROKER_OPTION_PREFIX}allow_always:${input.sequence}`;
    const label = `Always allow ${what}${where}`;
    offers.set(optionId, { decision: 'allow', subjects: named, scope: input.scope, label });
    brokerOptions.push({ optionId, name: label, kind: 'allow_always' });
  }
  const rejectId = `${BROKER_OPTION_PREFIX}reject_always:${input.sequence}`;
  const rejectLabel = `Always reject ${what}${where}`;
  offers.set(rejectId, { decision: 'deny', subjects: named, scope: input.scope, label: rejectLabel });
  brokerOptions.push({ optionId: rejectId, name: rejectLabel, kind: 'reject_always' });
  return { options: [...kept, ...brokerOptions], offers };
}

/** An agent's own *_always option, chosen by the human, becomes a broker grant of the same reach. */
export function offerForAgentAlways(option: OfferedOption, facts: CallFacts, evaluation: Evaluation, scope: GrantScope): GrantOffer | undefined {
  if (option.kind !== 'allow_always' && option.kind !== 'reject_always') return undefined;
  if (option.kind === 'allow_always' && facts.kind === 'switch_mode') return undefined;
  const question = subjectsInQuestion(facts, evaluation);
  if (!question) return undefined;
  return { decision: option.kind === 'allow_always' ? 'allow' : 'deny', subjects: question.subjects, scope, label: option.name };
}
