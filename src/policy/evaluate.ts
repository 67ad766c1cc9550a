import { strictest, type Decision } from '../core/decision.js';
import type { CallFacts } from '../core/facts.js';
import { commandMatcher, commandMatches, patternProgram, type CommandPattern } from '../shell/command-pattern.js';
import { lookThroughStarts } from '../shell/look-through.js';
import { basename } from '../shell/paths.js';
import type { SimpleCommand } from '../shell/types.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import { urlCandidates } from './hosts.js';
import { denyRulesAmong, describeItem, isDenyOnly, isGlobPath, itemsOf, type CallItem } from './items.js';
import { pathContext } from './path-context.js';
import type { Layer, PathContext, PolicyFile, PolicySet, Rule, RuleConditions } from './types.js';

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

/** Strictest wins, per item and across items and layers (DESIGN §4.4). Pure. */
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
  const wouldHave = evaluated.flatMap((i) => i.matches.filter((m) => m.enforcement !== 'enforce' && m.effective !== m.decision));
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
  const matches: RuleMatch[] = [];
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
  const label = command ? (command.label ??= describeItem(item)) : describeItem(item);
  return { item, label, decision, matches, grant };
}

const STRICT_PROGRAM = { strictProgram: true } as const;
/** Deny and ask rules look through the arguments of programs not known to treat them as data. */
const LOOSE_PROGRAM = { strictProgram: false, lookThrough: true } as const;

/**
 * Which rules can match an item, so an item tests only those (a policy may have hundreds of rules).
 * Only a pre-filter: every candidate is still tested as conditionsHold tests it, and candidates are
 * kept in policy order, so matches come out exactly as from a loop over all rules.
 * - a rule with `paths`/`access` only matches path items, `command` only command items, `url` only
 *   url items (two of these: nothing); a rule with none of them may match any item;
 * - a rule with `kind` only matches calls of those kinds;
 * - a `command` rule only matches commands whose program (basename) or argv[0] is the literal
 *   first word of one of its patterns; a glob or `*` first word may match any command.
 */
interface RuleIndex {
  readonly files: readonly PolicyFile[];
  readonly ruleLists: readonly (readonly Rule[])[];
  /** Every rule of every file, in order (managed → user → project). */
  readonly rules: readonly Rule[];
  forKind(kind: string): ItemCandidates;
  /** What is known about a read-only (frozen) command seen in a recent call; undefined on its first sighting and for others. */
  commandMemo(command: SimpleCommand): CommandMemo | undefined;
  /** A fresh memo of call conditions for one evaluation. */
  callConditions(): CallConditions;
}

/**
 * The conditions on the call (kind, tool, title, agent, input) are the same for every item: each
 * rule's are tested once per evaluation. Arrays owned by the index, stamped with the evaluation's
 * number, so nothing is allocated per call (and a nested evaluation only causes misses).
 */
interface CallConditions {
  hold(position: number, rule: Rule, facts: CallFacts): boolean;
}

interface CommandMemo {
  /** Per rule position: 0 not yet known, 1 the rule's item conditions hold for the command, 2 they do not. */
  readonly outcomes: Int8Array;
  label: string | undefined;
}

interface ItemCandidates {
  of(item: CallItem): readonly number[];
}

type ItemType = CallItem['type'];

interface RuleTargets {
  readonly types: ReadonlySet<ItemType>;
  /** For command rules: literal program words; undefined when a pattern may match any program. */
  readonly programs: readonly string[] | undefined;
}

const ALL_ITEM_TYPES: ReadonlySet<ItemType> = new Set(['command', 'path', 'url', 'none']);
const NO_ITEM_TYPES: ReadonlySet<ItemType> = new Set();
const MAX_INDEXED_KINDS = 32;
/**
 * Recent commands remembered per index: a cached analysis hands out the same frozen command objects
 * again when a line repeats. Compared by identity in a small ring (hashing frozen objects in a Map
 * costs more than it saves on the many lines seen once).
 */
const RECENT_COMMANDS = 32;
const MAX_INDEXES_PER_FIRST_FILE = 16;

/** Indexes by the first policy file (then matched on the whole file list; a PolicySet is often rebuilt per call). */
const indexes = new WeakMap<object, RuleIndex[]>();
const NO_FILES = {};

function ruleIndexOf(policy: PolicySet): RuleIndex {
  const key = policy.files[0] ?? NO_FILES;
  let list = indexes.get(key);
  const found = list?.find((index) => sameFiles(index, policy.files));
  if (found) return found;
  const index = buildRuleIndex(policy.files);
  if (!list) indexes.set(key, (list = []));
  list.unshift(index);
  if (list.length > MAX_INDEXES_PER_FIRST_FILE) list.pop();
  return index;
}

function sameFiles(index: RuleIndex, files: readonly PolicyFile[]): boolean {
  if (index.files.length !== files.length) return false;
  return files.every((file, i) => file === index.files[i] && file.rules === index.ruleLists[i]);
}

function buildRuleIndex(files: readonly PolicyFile[]): RuleIndex {
  const fileList = [...files];
  const ruleLists = fileList.map((file) => file.rules);
  const rules = ruleLists.flat();
  const targets = rules.map(targetsOf);
  const byKind = new Map<string, ItemCandidates>();
  const recent: (SimpleCommand | undefined)[] = new Array<SimpleCommand | undefined>(RECENT_COMMANDS).fill(undefined);
  const recentMemos: (CommandMemo | undefined)[] = new Array<CommandMemo | undefined>(RECENT_COMMANDS).fill(undefined);
  let nextSlot = 0;
  const stamps = new Int32Array(rules.length);
  const held = new Uint8Array(rules.length);
  let evaluation = 0;
  return {
    files: fileList,
    ruleLists,
    rules,
    forKind(kind) {
      let candidates = byKind.get(kind);
      if (!candidates) {
        candidates = buildCandidates(rules, targets, kind);
        if (byKind.size < MAX_INDEXED_KINDS) byKind.set(kind, candidates);
      }
      return candidates;
    },
    callConditions() {
      if (evaluation === 0x7fffffff) {
        stamps.fill(0);
        evaluation = 0;
      }
      const stamp = ++evaluation;
      return {
        hold(position, rule, facts) {
          if (stamps[position] !== stamp) {
            held[position] = callConditionsHold(rule.match, facts) ? 1 : 0;
            stamps[position] = stamp;
          }
          return held[position] === 1;
        },
      };
    },
    commandMemo(command) {
      // Only a frozen command (and argv) cannot change between calls; cwd, home and program are strings.
      if (!Object.isFrozen(command) || !Object.isFrozen(command.argv)) return undefined;
      for (let slot = 0; slot < RECENT_COMMANDS; slot++) {
        if (recent[slot] === command) return (recentMemos[slot] ??= { outcomes: new Int8Array(rules.length), label: undefined });
      }
      // Seen for the first time (lately): only remembered, nothing is allocated for it.
      recent[nextSlot] = command;
      recentMemos[nextSlot] = undefined;
      nextSlot = (nextSlot + 1) % RECENT_COMMANDS;
      return undefined;
    },
  };
}

function targetsOf(rule: Rule): RuleTargets {
  const c = rule.match;
  const onlyPaths = !!(c.paths || c.access);
  const only = [onlyPaths && 'path', c.command && 'command', c.url && 'url'].filter((type): type is ItemType => !!type);
  const types = only.length === 0 ? ALL_ITEM_TYPES : only.length === 1 ? new Set(only) : NO_ITEM_TYPES;
  let programs: string[] | undefined;
  if (c.command) {
    programs = [];
    for (const pattern of c.command) {
      const program = patternProgram(pattern);
      if (program === undefined) {
        programs = undefined;
        break;
      }
      programs.push(program);
    }
  }
  return { types, programs };
}

function buildCandidates(rules: readonly Rule[], targets: readonly RuleTargets[], kind: string): ItemCandidates {
  const byType: Record<ItemType, number[]> = { command: [], path: [], url: [], none: [] };
  /** Command rules that may match any program, and rules without item conditions. */
  const anyProgram: number[] = [];
  const byProgram = new Map<string, number[]>();
  rules.forEach((rule, position) => {
    if (rule.match.kind && !rule.match.kind.includes(kind as never)) return;
    const { types, programs } = targets[position]!;
    for (const type of types) byType[type].push(position);
    if (!types.has('command')) return;
    if (!programs) {
      anyProgram.push(position);
      return;
    }
    for (const program of new Set(programs)) {
      let bucket = byProgram.get(program);
      if (!bucket) byProgram.set(program, (bucket = []));
      bucket.push(position);
    }
  });
  // Each program's list already holds the rules that may match any program, in policy order.
  for (const [program, bucket] of byProgram) byProgram.set(program, mergeSorted(bucket, anyProgram));
  return {
    of(item) {
      if (item.type !== 'command') return byType[item.type];
      const { program, argv } = item.command;
      const byName = byProgram.get(program) ?? anyProgram;
      const argv0 = argv[0];
      let found = argv0 === undefined || argv0 === program ? byName : mergeSorted(byName, byProgram.get(argv0) ?? anyProgram);
      // Rules for a program named by a later word may match through look-through (deny and ask rules).
      for (const start of lookThroughStarts(item.command)) {
        const word = argv[start]!;
        for (const name of word.includes('/') ? [word, basename(word)] : [word]) {
          const bucket = byProgram.get(name);
          if (bucket) found = mergeSorted(found, bucket);
        }
      }
      return found;
    },
  };
}

/** Union of two ascending lists, ascending, without duplicates. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x <= y) i++;
    if (y <= x) j++;
    out.push(Math.min(x, y));
  }
  return out;
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
  return callConditionsHold(c, facts) && itemConditionsHold(c, item, context, strictProgram);
}

/** The conditions on the call as a whole: the same for every item. */
function callConditionsHold(c: RuleConditions, facts: CallFacts): boolean {
  if (c.kind && !c.kind.includes(facts.kind)) return false;
  if (c.tool && !(facts.tool !== undefined && c.tool.some((m) => m.test(facts.tool!)))) return false;
  if (c.title && !(facts.title !== undefined && c.title.some((m) => m.test(facts.title!)))) return false;
  if (c.agent && !(facts.agent !== undefined && c.agent.some((m) => m.test(facts.agent!)))) return false;
  if (c.input && !c.input.every((cond) => {
    const value = fieldAt(facts.input, cond.field);
    return value !== undefined && cond.matcher.test(typeof value === 'string' ? value : JSON.stringify(value));
  })) return false;
  return true;
}

/** The conditions on one item; `matches` tests a command pattern against the item's command. */
function itemConditionsHold(
  c: RuleConditions, item: CallItem, context: PathContext, strictProgram: boolean,
  matches?: (pattern: CommandPattern) => boolean,
): boolean {
  if (c.paths || c.access) {
    if (item.type !== 'path') return false;
    if (c.access && !c.access.includes(item.path.access)) return false;
    if (c.paths) {
      const { path, glob, access, expanded } = item.path;
      // A glob stands for every path bash may expand it to: allow rules must cover them all. Deny
      // and ask rules hold when it could name a path they name — except a read glob whose current
      // matches were listed: it reads only files that exist when it runs, and those are facts of their own.
      const holds = !glob
        ? c.paths.some((m) => m.test(path, context, strictProgram))
        : strictProgram
          ? c.paths.some((m) => m.testGlob(path, context, 'every'))
          : !(access === 'read' && expanded) && c.paths.some((m) => m.testGlob(path, context, 'some'));
      if (!holds) return false;
    }
  }
  if (c.command) {
    if (item.type !== 'command') return false;
    const command = item.command;
    // An argument known only at run time may be anything: no allow pattern vouches for it.
    if (strictProgram && command.dynamicArguments) return false;
    if (!c.command.some(matches ?? ((p) => commandMatches(p, command, strictProgram ? STRICT_PROGRAM : LOOSE_PROGRAM)))) return false;
  }
  if (c.url) {
    if (item.type !== 'url') return false;
    const candidates = urlCandidates(item.url);
    if (!c.url.some((m) => candidates.some((candidate) => m.test(candidate)))) return false;
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
