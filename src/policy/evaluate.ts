import { strictest, type Decision } from '../core/decision.js';
import type { CallFacts } from '../core/facts.js';
import { commandMatcher, type CommandPattern } from '../shell/command-pattern.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import { itemConditionsHold, LOOSE_PROGRAM, STRICT_PROGRAM } from './conditions.js';
import { denyRulesAmong, describeItem, isDenyOnly, isGlobPath, itemsOf, type CallItem } from './items.js';
import { pathContext } from './path-context.js';
import { ruleIndexOf, type CallConditions, type RuleIndex } from './rule-index.js';
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
  readonly grants?: GrantLookup;
}

/** Strictest wins, per item and across items and layers (README: "How a call is decided"). Pure. */
export function evaluate(policy: PolicySet, facts: CallFacts, options: EvaluateOptions): Evaluation {
  const context = pathContext(facts.workspace, options.home, options.canonicalize);
  const index = ruleIndexOf(policy);
  const rules = index.rules;
  const candidates = index.forKind(facts.kind);
  const callConditions = index.callConditions();
  // A deny-only item is seen by deny rules alone and never by grants; one no rule decides is dropped.
  const evaluated = itemsOf(facts).map((item) => isDenyOnly(item)
    ? evaluateItem(item, index, denyRulesAmong(candidates.of(item), rules), callConditions, facts, context, undefined)
    // A grant names one path: it never covers a glob.
    : evaluateItem(item, index, candidates.of(item), callConditions, facts, context, isGlobPath(item) ? undefined : options.grants));
  const wouldHave: RuleMatch[] = [];
  for (const i of evaluated) for (const m of i.matches) if (m.enforcement !== 'enforce' && m.effective !== m.decision) wouldHave.push(m);
  const items = evaluated.filter((i) => !isDenyOnly(i.item) || i.decision !== undefined);
  const fallback = policy.files.reduce<Decision>((acc, file) => strictest(acc, file.default), policy.files.length ? 'allow' : 'ask');

  const denied = items.find((i) => i.decision === 'deny');
  if (denied) return finish('deny', sourceOf(denied, 'deny'), reasonOf(denied, 'deny'));
  const asked = items.find((i) => i.decision === 'ask');
  if (asked) return finish('ask', sourceOf(asked, 'ask'), reasonOf(asked, 'ask'));
  if (facts.unresolvable.length > 0) {
    return finish('ask', { type: 'unresolvable' }, `cannot be resolved statically: ${facts.unresolvable.join('; ')}`);
  }
  if (items.length > 0 && items.every((i) => i.decision === 'allow')) {
    return finish('allow', sourceOf(items[0]!, 'allow'), items.map((i) => reasonOf(i, 'allow')).join('; '));
  }
  const undecided = items.filter((i) => i.decision === undefined).map((i) => i.label);
  return finish(fallback, { type: 'default' }, `no rule decides ${undecided.join(', ')}; policy default is ${fallback}`);

  function finish(decision: Decision, source: DecisionSource, reason: string): Evaluation {
    const unresolvable = facts.unresolvable;
    if (decision === 'allow' && facts.kind === 'switch_mode' && !items.every((i) => allowedExplicitlyForSwitchMode(i, rules))) {
      // A mode switch can escalate the whole session (e.g. to bypassPermissions); only a rule that names it may allow it.
      return { decision: 'ask', source: { type: 'switch_mode_guard' }, reason: 'mode switches are allowed only by a rule naming `kind: switch_mode`', items, unresolvable, wouldHave };
    }
    return { decision, source, reason, items, unresolvable, wouldHave };
  }
}

/**
 * `candidates`: positions in `index.rules`, ascending, of every rule that can match `item` (see
 * RuleIndex). Each is tested exactly as conditionsHold does, split in its call part (remembered in
 * `callConditions` for the other items) and its item part (for a command, remembered across calls
 * while the same analysed command comes back).
 */
function evaluateItem(
  item: CallItem, index: RuleIndex, candidates: readonly number[], callConditions: CallConditions, facts: CallFacts, context: PathContext,
  grants: GrantLookup | undefined,
): ItemEvaluation {
  const rules = index.rules;
  let matches: RuleMatch[] | undefined;
  let ruleDecision: Decision | undefined;
  let managedAsk = false;
  const command = item.type === 'command' ? index.commandMemo(item.command) : undefined;
  let matcher: ReturnType<typeof commandMatcher> | undefined;
  let strictMatches: ((pattern: CommandPattern) => boolean) | undefined;
  let looseMatches: ((pattern: CommandPattern) => boolean) | undefined;
  for (const position of candidates) {
    const rule = rules[position]!;
    if (!callConditions.hold(position, rule, facts)) continue;
    // Allow rules match a program only by name or from a system directory (`./git` may be anything).
    const strictProgram = rule.decision === 'allow';
    if (item.type === 'command' && rule.match.command) {
      const outcomes = command?.outcomes;
      const known = outcomes ? outcomes[position]! : 0;
      let holds: boolean;
      if (known !== 0) {
        holds = known === 1;
      } else {
        const matches = strictProgram
          ? (strictMatches ??= (pattern) => (matcher ??= commandMatcher(item.command))(pattern, STRICT_PROGRAM))
          : (looseMatches ??= (pattern) => (matcher ??= commandMatcher(item.command))(pattern, LOOSE_PROGRAM));
        holds = itemConditionsHold(rule.match, item, context, strictProgram, matches);
        if (outcomes) outcomes[position] = holds ? 1 : 2;
      }
      if (!holds) continue;
    } else if (!itemConditionsHold(rule.match, item, context, strictProgram)) {
      continue;
    }
    const effective = effectiveDecision(rule);
    (matches ??= []).push({
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
  const label = command ? (command.label ??= describeItem(item)) : describeItem(item);
  return { item, label, decision, matches: matches ?? NO_MATCHES, grant };
}



const NO_MATCHES: readonly RuleMatch[] = Object.freeze([]);

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
