import { strictest, type Decision } from '../core/decision.js';
import type { CallFacts } from '../core/facts.js';
import { commandMatches } from '../shell/command-pattern.js';
import { describeItem, itemsOf, type CallItem } from './items.js';
import type { Layer, PathContext, PolicySet, Rule, RuleConditions } from './types.js';

export interface RuleMatch {
  readonly ruleId: string;
  readonly layer: Layer;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** The rule's own decision. */
  readonly decision: Decision;
  /** What it contributes after enforcement (warn turns deny into ask); undefined for shadow rules. */
  readonly effective: Decision | undefined;
  readonly enforcement: Rule['enforcement'];
  readonly reason: string | undefined;
}

export interface GrantHit {
  readonly id: string;
  readonly decision: 'allow' | 'deny';
}

/** Looks up a remembered decision for one item; the broker injects the grants store here. */
export type GrantLookup = (item: CallItem, facts: CallFacts) => GrantHit | undefined;

export interface ItemEvaluation {
  readonly item: CallItem;
  readonly label: string;
  /** undefined: no rule or grant decided this item. */
  readonly decision: Decision | undefined;
  readonly matches: readonly RuleMatch[];
  readonly grant: GrantHit | undefined;
}

export type DecisionSource =
  | { readonly type: 'rule'; readonly ruleId: string; readonly layer: Layer }
  | { readonly type: 'grant'; readonly grantId: string }
  | { readonly type: 'default' }
  | { readonly type: 'unresolvable' }
  | { readonly type: 'switch_mode_guard' };

export interface Evaluation {
  readonly decision: Decision;
  readonly source: DecisionSource;
  readonly reason: string;
  readonly items: readonly ItemEvaluation[];
  readonly unresolvable: readonly string[];
  /** Shadow and warn rules that fired: what they would have done. */
  readonly wouldHave: readonly RuleMatch[];
}

export interface EvaluateOptions {
  readonly home: string;
  readonly grants?: GrantLookup;
}

/** Strictest wins, per item and across items and layers (DESIGN §4.4). Pure. */
export function evaluate(policy: PolicySet, facts: CallFacts, options: EvaluateOptions): Evaluation {
  const context: PathContext = { workspace: facts.workspace, home: options.home };
  const rules = policy.files.flatMap((file) => file.rules);
  const items = itemsOf(facts).map((item) => evaluateItem(item, rules, facts, context, options.grants));
  const wouldHave = items.flatMap((i) => i.matches.filter((m) => m.enforcement !== 'enforce' && m.effective !== m.decision));
  const fallback = policy.files.reduce<Decision>((acc, file) => strictest(acc, file.default), policy.files.length ? 'allow' : 'ask');

  const denied = items.find((i) => i.decision === 'deny');
  if (denied) return finish('deny', sourceOf(denied, 'deny'), reasonOf(denied, 'deny'));
  const asked = items.find((i) => i.decision === 'ask');
  if (asked) return finish('ask', sourceOf(asked, 'ask'), reasonOf(asked, 'ask'));
  if (facts.unresolvable.length > 0) {
    return finish('ask', { type: 'unresolvable' }, `cannot be resolved statically: ${facts.unresolvable.join('; ')}`);
  }
  if (items.every((i) => i.decision === 'allow')) {
    return finish('allow', sourceOf(items[0]!, 'allow'), items.map((i) => reasonOf(i, 'allow')).join('; '));
  }
  const undecided = items.filter((i) => i.decision === undefined).map((i) => i.label);
  return finish(fallback, { type: 'default' }, `no rule decides ${undecided.join(', ')}; policy default is ${fallback}`);

  function finish(decision: Decision, source: DecisionSource, reason: string): Evaluation {
    if (decision === 'allow' && facts.kind === 'switch_mode' && !items.every((i) => allowedExplicitlyForSwitchMode(i, rules))) {
      // A mode switch can escalate the whole session (e.g. to bypassPermissions); only a rule that names it may allow it.
      return { decision: 'ask', source: { type: 'switch_mode_guard' }, reason: 'mode switches are allowed only by a rule naming `kind: switch_mode`', items, unresolvable: facts.unresolvable, wouldHave };
    }
    return { decision, source, reason, items, unresolvable: facts.unresolvable, wouldHave };
  }
}

function evaluateItem(item: CallItem, rules: readonly Rule[], facts: CallFacts, context: PathContext, grants: GrantLookup | undefined): ItemEvaluation {
  const matches: RuleMatch[] = [];
  let ruleDecision: Decision | undefined;
  let managedAsk = false;
  for (const rule of rules) {
    // Allow rules match a program only by name or from a system directory (`./git` may be anything).
    if (!conditionsHold(rule.match, item, facts, context, rule.decision === 'allow')) continue;
    const effective = effectiveDecision(rule);
    matches.push({
      ruleId: rule.id, layer: rule.layer, file: rule.file, line: rule.location.line, column: rule.location.column,
      decision: rule.decision, effective, enforcement: rule.enforcement, reason: rule.reason,
    });
    if (effective === undefined) continue;
    ruleDecision = ruleDecision === undefined ? effective : strictest(ruleDecision, effective);
    if (rule.layer === 'managed' && effective === 'ask') managedAsk = true;
  }
  const grant = grants?.(item, facts);
  let decision = ruleDecision;
  if (grant?.decision === 'deny') decision = 'deny';
  // A grant never overrides a deny rule, nor an ask from the managed layer.
  else if (grant?.decision === 'allow' && ruleDecision !== 'deny' && !managedAsk) decision = 'allow';
  return { item, label: describeItem(item), decision, matches, grant };
}

function effectiveDecision(rule: Rule): Decision | undefined {
  switch (rule.enforcement) {
    case 'enforce': return rule.decision;
    case 'warn': return rule.decision === 'deny' ? 'ask' : rule.decision;
    case 'shadow': return undefined;
  }
}

function allowedExplicitlyForSwitchMode(item: ItemEvaluation, rules: readonly Rule[]): boolean {
  if (item.grant) return false;
  return item.matches.some((m) => m.effective === 'allow'
    && rules.find((r) => r.id === m.ruleId && r.file === m.file)?.match.kind?.includes('switch_mode'));
}

function sourceOf(item: ItemEvaluation, decision: Decision): DecisionSource {
  if (item.grant && (item.grant.decision === decision)) {
    const ruleAgrees = item.matches.some((m) => m.effective === decision);
    if (!ruleAgrees || decision === 'allow') return { type: 'grant', grantId: item.grant.id };
  }
  const deciding = item.matches.find((m) => m.effective === decision);
  return deciding ? { type: 'rule', ruleId: deciding.ruleId, layer: deciding.layer } : { type: 'default' };
}

function reasonOf(item: ItemEvaluation, decision: Decision): string {
  const source = sourceOf(item, decision);
  if (source.type === 'grant') return `${describeVerb(decision)} ${item.label} (remembered grant ${source.grantId})`;
  const deciding = item.matches.find((m) => m.effective === decision);
  if (!deciding) return `${describeVerb(decision)} ${item.label}`;
  const why = deciding.reason ? `: ${deciding.reason}` : '';
  const warned = deciding.enforcement === 'warn' && deciding.decision !== decision ? ` (warn: would ${deciding.decision})` : '';
  return `rule ${deciding.ruleId} ${describeVerb(decision)} ${item.label}${why}${warned}`;
}

function describeVerb(decision: Decision): string {
  return decision === 'allow' ? 'allows' : decision === 'deny' ? 'denies' : 'asks about';
}

/** Whether every condition of a rule holds for one item of a call. */
export function conditionsHold(c: RuleConditions, item: CallItem, facts: CallFacts, context: PathContext, strictProgram = false): boolean {
  if (c.kind && !c.kind.includes(facts.kind)) return false;
  if (c.tool && !(facts.tool !== undefined && c.tool.some((m) => m.test(facts.tool!)))) return false;
  if (c.title && !(facts.title !== undefined && c.title.some((m) => m.test(facts.title!)))) return false;
  if (c.agent && !(facts.agent !== undefined && c.agent.some((m) => m.test(facts.agent!)))) return false;
  if (c.input && !c.input.every((cond) => {
    const value = fieldAt(facts.input, cond.field);
    return value !== undefined && cond.matcher.test(typeof value === 'string' ? value : JSON.stringify(value));
  })) return false;
  if (c.paths || c.access) {
    if (item.type !== 'path') return false;
    if (c.access && !c.access.includes(item.path.access)) return false;
    if (c.paths && !c.paths.some((m) => m.test(item.path.path, context))) return false;
  }
  if (c.command) {
    if (item.type !== 'command') return false;
    if (!c.command.some((p) => commandMatches(p, item.command, { strictProgram }))) return false;
  }
  if (c.url) {
    if (item.type !== 'url') return false;
    const host = hostOf(item.url);
    if (!c.url.some((m) => m.test(item.url) || (host !== undefined && m.test(host)))) return false;
  }
  return true;
}

function fieldAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

