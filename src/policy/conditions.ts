/**
 * What a rule's conditions mean for one call and one of its items: the rule semantics a reader needs
 * to understand a decision (the combination, strictest wins, is in evaluate.ts).
 */
import type { CallFacts } from '../core/facts.js';
import { commandMatches, type CommandMatchOptions, type CommandPattern } from '../shell/command-pattern.js';
import { urlCandidates } from './hosts.js';
import type { SimpleCommand } from '../shell/types.js';
import type { CallItem } from './items.js';
import type { PathContext, RuleConditions } from './types.js';

const STRICT_PROGRAM = { strictProgram: true } as const;
/** Deny and ask rules look through the arguments of programs not known to treat them as data. */
const LOOSE_PROGRAM = { strictProgram: false, lookThrough: true } as const;

/** Whether every condition of a rule holds for one item of a call. */
export function conditionsHold(c: RuleConditions, item: CallItem, facts: CallFacts, context: PathContext, strictProgram = false): boolean {
  return callConditionsHold(c, facts) && itemConditionsHold(c, item, context, strictProgram);
}

/** The conditions on the call as a whole: the same for every item. */
export function callConditionsHold(c: RuleConditions, facts: CallFacts): boolean {
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

/**
 * The conditions on one item; `matches` tests a command pattern against the item's command (a
 * `commandMatcher` of it, which remembers what it worked out about the command between patterns).
 */
export function itemConditionsHold(
  c: RuleConditions, item: CallItem, context: PathContext, strictProgram: boolean,
  matches?: (pattern: CommandPattern, options: CommandMatchOptions) => boolean,
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
        ? anyPathPattern(c.paths, path, context, strictProgram)
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
    if (!anyCommandPattern(c.command, command, strictProgram, matches)) return false;
  }
  if (c.url) {
    if (item.type !== 'url') return false;
    const candidates = urlCandidates(item.url);
    if (!c.url.some((m) => candidates.some((candidate) => m.test(candidate)))) return false;
  }
  return true;
}

function anyPathPattern(matchers: NonNullable<RuleConditions['paths']>, path: string, context: PathContext, forAllow: boolean): boolean {
  for (let i = 0; i < matchers.length; i++) if (matchers[i]!.test(path, context, forAllow)) return true;
  return false;
}

function anyCommandPattern(
  patterns: readonly CommandPattern[], command: SimpleCommand, strictProgram: boolean,
  matches: ((pattern: CommandPattern, options: CommandMatchOptions) => boolean) | undefined,
): boolean {
  const options = strictProgram ? STRICT_PROGRAM : LOOSE_PROGRAM;
  for (let i = 0; i < patterns.length; i++) {
    const pattern = patterns[i]!;
    if (matches ? matches(pattern, options) : commandMatches(pattern, command, options)) return true;
  }
  return false;
}

function fieldAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
