import type { CallFacts } from '../core/facts.js';
import { patternProgram } from '../shell/command-pattern.js';
import { lookThroughStarts } from '../shell/look-through.js';
import { basename } from '../shell/paths.js';
import type { SimpleCommand } from '../shell/types.js';
import { callConditionsHold } from './conditions.js';
import type { CallItem } from './items.js';
import type { PolicyFile, PolicySet, Rule } from './types.js';

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
export interface RuleIndex {
  readonly files: readonly PolicyFile[];
  readonly ruleLists: readonly (readonly Rule[])[];
  /** Every rule of every file, in order (managed → user → project). */
  readonly rules: readonly Rule[];
  forKind(kind: string): ItemCandidates;
  /**
   * What is known about a command seen in a recent call (the same frozen object, or the same words,
   * program, cwd, home and dynamic flag: all a command's item conditions look at); undefined on its
   * first sighting.
   */
  commandMemo(command: SimpleCommand): CommandMemo | undefined;
  /**
   * The conditions on the call (kind, tool, title, agent, input) are the same for every item: each
   * rule's are tested once per evaluation. `callConditions()` starts an evaluation and returns its
   * stamp; `callConditionsHold` answers from arrays owned by the index, stamped with that number, so
   * nothing is allocated per call (and a nested evaluation only causes misses).
   */
  callConditions(): number;
  callConditionsHold(stamp: number, position: number, rule: Rule, facts: CallFacts): boolean;
}

export interface CommandMemo {
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
/** Commands remembered by content (`agent runs git status again`); the map is emptied when full. */
const MAX_COMMANDS_BY_CONTENT = 512;
const MAX_INDEXES_PER_FIRST_FILE = 16;

/** Indexes by the first policy file (then matched on the whole file list; a PolicySet is often rebuilt per call). */
const indexes = new WeakMap<object, RuleIndex[]>();
const NO_FILES = {};

export function ruleIndexOf(policy: PolicySet): RuleIndex {
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
  /** null: seen once (nothing allocated for a command that never comes back). */
  const byContent = new Map<string, CommandMemo | null>();
  const newMemo = (): CommandMemo => ({ outcomes: new Int8Array(rules.length), label: undefined });
  /** The memo of a command's content: created on its second sighting, undefined on its first (remembered). */
  const memoByContent = (command: SimpleCommand): CommandMemo | undefined => {
    const key = commandContentKey(command);
    if (key === undefined) return undefined;
    const known = byContent.get(key);
    if (known) return known;
    if (known === null) {
      const memo = newMemo();
      byContent.set(key, memo);
      return memo;
    }
    if (byContent.size >= MAX_COMMANDS_BY_CONTENT) byContent.clear();
    byContent.set(key, null);
    return undefined;
  };
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
      return ++evaluation;
    },
    callConditionsHold(stamp, position, rule, facts) {
      if (stamps[position] !== stamp) {
        held[position] = callConditionsHold(rule.match, facts) ? 1 : 0;
        stamps[position] = stamp;
      }
      return held[position] === 1;
    },
    commandMemo(command) {
      // Only a frozen command (and argv) cannot change between calls; cwd, home and program are strings.
      const frozen = Object.isFrozen(command) && Object.isFrozen(command.argv);
      if (frozen) {
        for (let slot = 0; slot < RECENT_COMMANDS; slot++) {
          if (recent[slot] === command) return (recentMemos[slot] ??= memoByContent(command) ?? newMemo());
        }
      }
      const memo = memoByContent(command);
      if (frozen) {
        // Seen for the first time (lately): remembered, with what its content already told.
        recent[nextSlot] = command;
        recentMemos[nextSlot] = memo;
        nextSlot = (nextSlot + 1) % RECENT_COMMANDS;
      }
      return memo;
    },
  };
}

/**
 * Everything a command's item conditions depend on (command-pattern.ts and conditions.ts read argv,
 * program, cwd, home and dynamicArguments), joined by NUL; undefined when a part holds a NUL (then
 * two commands could share a key): such a command is not remembered.
 */
function commandContentKey(command: SimpleCommand): string | undefined {
  const { home, cwd, program, argv } = command;
  if ((home !== undefined && home.includes('\0')) || cwd.includes('\0') || program.includes('\0')) return undefined;
  let key = `${command.dynamicArguments === true ? 'd' : '-'}${home === undefined ? '-' : `h${home}`}\0${cwd}\0${program}`;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.includes('\0')) return undefined;
    key += `\0${word}`;
  }
  return key;
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
      const starts = lookThroughStarts(item.command);
      for (let s = 0; s < starts.length; s++) {
        const word = argv[starts[s]!]!;
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
