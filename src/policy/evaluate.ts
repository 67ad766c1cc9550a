import { strictest, type Decision } from '../core/decision.js';
import type { CallFacts } from '../core/facts.js';
import { commandMatcher } from '../shell/command-pattern.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import { itemConditionsHold } from './conditions.js';
import { denyRulesAmong, describeItem, isDenyOnly, isGlobPath, itemsOf, type CallItem } from './items.js';
import { pathContext } from './path-context.js';
import { ruleIndexOf, type RuleIndex } from './rule-index.js';
import type { Layer, PathContext, PolicySet, Rule } from './types.js';

/** The rule semantics, for callers that test one rule against one item (examples, the index's oracle tests). */
export { conditionsHold } from './conditions.js';

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
  /** Resolves the anchors of path patterns like request paths (symlinks); absent: patterns as written. */
  readonly canonicalize?: PathCanonicalizer;
  readonly grants?: GrantLookup | undefined;
}

/**
 * Strictest wins, per item and across items and layers (README: "How a call is decided"). Pure.
 * Loops rather than map/filter/find and no closures: this runs for every decision, and each array
 * or closure it does not allocate is memory the next request does not touch.
 */
export function evaluate(policy: PolicySet, facts: CallFacts, options: EvaluateOptions): Evaluation {
  const index = ruleIndexOf(policy);
  const rules = index.rules;
  const candidates = index.forKind(facts.kind);
  const stamp = index.callConditions();
  // Only path items look at the path context: a call without paths never builds one.
  let context: PathContext | undefined;
  const all = itemsOf(facts);
  const evaluated: ItemEvaluation[] = new Array<ItemEvaluation>(all.length);
  let wouldHave: RuleMatch[] | undefined;
  let denyOnlyItems = 0;
  for (let i = 0; i < all.length; i++) {
    const item = all[i]!;
    if (item.type === 'path') context ??= pathContext(facts.workspace, options.home, options.canonicalize);
    const itemContext = context ?? NO_PATHS_CONTEXT;
    // A deny-only item is seen by deny rules alone and never by grants; one no rule decides is dropped.
    const result = isDenyOnly(item)
      ? evaluateItem(item, index, denyRulesAmong(candidates.of(item), rules), stamp, facts, itemContext, undefined)
      // A grant names one path: it never covers a glob.
      : evaluateItem(item, index, candidates.of(item), stamp, facts, itemContext, isGlobPath(item) ? undefined : options.grants);
    evaluated[i] = result;
    if (isDenyOnly(item)) denyOnlyItems++;
    const matches = result.matches;
    for (let k = 0; k < matches.length; k++) {
      const m = matches[k]!;
      if (m.enforcement !== 'enforce' && m.effective !== m.decision) (wouldHave ??= []).push(m);
    }
  }
  const items = denyOnlyItems === 0 ? evaluated : evaluated.filter((i) => !isDenyOnly(i.item) || i.decision !== undefined);
  const shadowed = wouldHave ?? NO_MATCHES;

  const denied = firstWith(items, 'deny');
  if (denied) return finish(facts, rules, items, shadowed, 'deny', sourceOf(denied, 'deny'), reasonOf(denied, 'deny'));
  const asked = firstWith(items, 'ask');
  if (asked) return finish(facts, rules, items, shadowed, 'ask', sourceOf(asked, 'ask'), reasonOf(asked, 'ask'));
  if (facts.unresolvable.length > 0) {
    return finish(facts, rules, items, shadowed, 'ask', UNRESOLVABLE_SOURCE, `cannot be resolved statically: ${facts.unresolvable.join('; ')}`);
  }
  if (items.length > 0 && firstUndecided(items) === undefined) {
    let reason = reasonOf(items[0]!, 'allow');
    for (let i = 1; i < items.length; i++) reason += `; ${reasonOf(items[i]!, 'allow')}`;
    return finish(facts, rules, items, shadowed, 'allow', sourceOf(items[0]!, 'allow'), reason);
  }
  const fallback = policy.files.reduce<Decision>((acc, file) => strictest(acc, file.default), policy.files.length ? 'allow' : 'ask');
  const undecided = items.filter((i) => i.decision === undefined).map((i) => i.label);
  return finish(facts, rules, items, shadowed, fallback, DEFAULT_SOURCE, `no rule decides ${undecided.join(', ')}; policy default is ${fallback}`);
}

/** The context of a call without path items: only path conditions read it, and they never run for other items. */
const NO_PATHS_CONTEXT: PathContext = Object.freeze({ workspace: '', home: '' });
const UNRESOLVABLE_SOURCE: DecisionSource = Object.freeze({ type: 'unresolvable' });
const DEFAULT_SOURCE: DecisionSource = Object.freeze({ type: 'default' });

function firstWith(items: readonly ItemEvaluation[], decision: Decision): ItemEvaluation | undefined {
  for (let i = 0; i < items.length; i++) if (items[i]!.decision === decision) return items[i];
  return undefined;
}

/** The first item no allow decided (undefined: every item is allowed). Called only when none is denied or asked. */
function firstUndecided(items: readonly ItemEvaluation[]): ItemEvaluation | undefined {
  for (let i = 0; i < items.length; i++) if (items[i]!.decision !== 'allow') return items[i];
  return undefined;
}

function finish(
  facts: CallFacts, rules: readonly Rule[], items: readonly ItemEvaluation[], wouldHave: readonly RuleMatch[],
  decision: Decision, source: DecisionSource, reason: string,
): Evaluation {
  const unresolvable = facts.unresolvable;
  if (decision === 'allow' && facts.kind === 'switch_mode' && !items.every((i) => allowedExplicitlyForSwitchMode(i, rules))) {
    // A mode switch can escalate the whole session (e.g. to bypassPermissions); only a rule that names it may allow it.
    return { decision: 'ask', source: { type: 'switch_mode_guard' }, reason: 'mode switches are allowed only by a rule naming `kind: switch_mode`', items, unresolvable, wouldHave };
  }
  return { decision, source, reason, items, unresolvable, wouldHave };
}

/**
 * `candidates`: positions in `index.rules`, ascending, of every rule that can match `item` (see
 * RuleIndex). Each is tested exactly as conditionsHold does, split in its call part (remembered under
 * `stamp` for the other items) and its item part (for a command, remembered across calls
 * while the same analysed command comes back).
 */
function evaluateItem(
  item: CallItem, index: RuleIndex, candidates: readonly number[], stamp: number, facts: CallFacts, context: PathContext,
  grants: GrantLookup | undefined,
): ItemEvaluation {
  const rules = index.rules;
  let matches: RuleMatch[] | undefined;
  let ruleDecision: Decision | undefined;
  let managedAsk = false;
  const command = item.type === 'command' ? index.commandMemo(item.command) : undefined;
  let matcher: ReturnType<typeof commandMatcher> | undefined;
  for (let c = 0; c < candidates.length; c++) {
    const position = candidates[c]!;
    const rule = rules[position]!;
    if (!index.callConditionsHold(stamp, position, rule, facts)) continue;
    // Allow rules match a program only by name or from a system directory (`./git` may be anything).
    const strictProgram = rule.decision === 'allow';
    if (item.type === 'command' && rule.match.command) {
      const outcomes = command?.outcomes;
      const known = outcomes ? outcomes[position]! : 0;
      let holds: boolean;
      if (known !== 0) {
        holds = known === 1;
      } else {
        holds = itemConditionsHold(rule.match, item, context, strictProgram, (matcher ??= commandMatcher(item.command)));
        if (outcomes) outcomes[position] = holds ? 1 : 2;
      }
      if (!holds) continue;
    } else if (!itemConditionsHold(rule.match, item, context, strictProgram)) {
      continue;
    }
    const match = ruleMatchOf(rule);
    if (matches === undefined) matches = [match];
    else matches.push(match);
    const effective = match.effective;
    if (effective === undefined) continue;
    ruleDecision = ruleDecision === undefined ? effective : strictest(ruleDecision, effective);
    if (rule.layer === 'managed' && effective === 'ask') managedAsk = true;
  }
  const grant = grants?.(item, facts);
  let decision = ruleDecision;
  if (grant?.decision === 'deny') decision = 'deny';
  // A grant never overrides a deny rule, nor an ask from the managed layer.
  else if (grant?.decision === 'allow' && ruleDecision !== 'deny' && !managedAsk) decision = 'allow';
  const label = command ? (command.label ??= describeItem(item)) : describeItem(item);
  return { item, label, decision, matches: matches ?? NO_MATCHES, grant };
}



const NO_MATCHES: readonly RuleMatch[] = Object.freeze([]);

/** A rule's match record depends on the rule alone: one frozen record per rule, shared by every call it matches. */
const ruleMatches = new WeakMap<Rule, RuleMatch>();

function ruleMatchOf(rule: Rule): RuleMatch {
  let match = ruleMatches.get(rule);
  if (match === undefined) {
    match = Object.freeze({
      ruleId: rule.id, layer: rule.layer, file: rule.file, line: rule.location.line, column: rule.location.column,
      decision: rule.decision, effective: effectiveDecision(rule), enforcement: rule.enforcement, reason: rule.reason,
    });
    ruleMatches.set(rule, match);
  }
  return match;
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
  if (decidedByGrant(item, decision)) return { type: 'grant', grantId: item.grant!.id };
  const deciding = decidingMatch(item, decision);
  return deciding ? { type: 'rule', ruleId: deciding.ruleId, layer: deciding.layer } : DEFAULT_SOURCE;
}

/** Whether the item's grant (not a rule) is the source of `decision`. */
function decidedByGrant(item: ItemEvaluation, decision: Decision): boolean {
  if (!item.grant || item.grant.decision !== decision) return false;
  return decision === 'allow' || decidingMatch(item, decision) === undefined;
}

function decidingMatch(item: ItemEvaluation, decision: Decision): RuleMatch | undefined {
  const matches = item.matches;
  for (let i = 0; i < matches.length; i++) if (matches[i]!.effective === decision) return matches[i];
  return undefined;
}

function reasonOf(item: ItemEvaluation, decision: Decision): string {
  if (decidedByGrant(item, decision)) return `${describeVerb(decision)} ${item.label} (remembered grant ${item.grant!.id})`;
  const deciding = decidingMatch(item, decision);
  if (!deciding) return `${describeVerb(decision)} ${item.label}`;
  const why = deciding.reason ? `: ${deciding.reason}` : '';
  const warned = deciding.enforcement === 'warn' && deciding.decision !== decision ? ` (warn: would ${deciding.decision})` : '';
  return `rule ${deciding.ruleId} ${describeVerb(decision)} ${item.label}${why}${warned}`;
}

function describeVerb(decision: Decision): string {
  return decision === 'allow' ? 'allows' : decision === 'deny' ? 'denies' : 'asks about';
}
