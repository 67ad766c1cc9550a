import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import type { SourceLocation } from '../core/errors.js';
import { patternSubsumes } from '../shell/command-pattern.js';
import type { Diagnostic } from './diagnostics.js';
import { commandPatternFindings, pathPatternFindings } from './lint-patterns.js';
import { pathPatternCovers } from './lint-paths.js';
import type { Decision } from '../core/decision.js';
import type { PolicyFile, Rule, RuleConditions } from './types.js';

/**
 * Warnings about rules that load but probably do not do what their author meant: patterns that can
 * never match what the broker produces (lint-patterns.ts), conditions that can never hold
 * together, and rules made redundant by an earlier, broader rule of the same decision — reported
 * only when the earlier rule provably matches everything the later one does.
 * `text`: the file's text, to point at each pattern (policy locations stop at the rule).
 */
export function lintPolicy(policy: PolicyFile, text: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const positions = patternPositions(text, policy.file);
  policy.rules.forEach((rule, index) => {
    const at = positions[index];
    const dead = (where: readonly SourceLocation[] | undefined, j: number, finding: { message: string; hint: string }) => {
      diagnostics.push({ severity: 'warning', code: 'dead_pattern', ruleId: rule.id, location: where?.[j] ?? rule.location,
        message: `rule \`${rule.id}\`: ${finding.message}`, hint: finding.hint });
    };
    rule.match.paths?.forEach((p, j) => { for (const f of pathPatternFindings(p.source)) dead(at?.paths, j, f); });
    rule.match.command?.forEach((c, j) => { for (const f of commandPatternFindings(c.source)) dead(at?.command, j, f); });
    const never = neverMatches(rule.match);
    if (never) {
      diagnostics.push({ severity: 'warning', code: 'never_matches', ruleId: rule.id, location: rule.location,
        message: `rule \`${rule.id}\` can never match: ${never}`, hint: 'split it into two rules' });
      return;
    }
    const broader = policy.rules.slice(0, index).find((earlier) => earlier.decision === rule.decision
      && earlier.enforcement === rule.enforcement && covers(earlier.match, rule.match, rule.decision));
    if (broader) {
      diagnostics.push({ severity: 'warning', code: 'shadowed_rule', ruleId: rule.id, location: rule.location,
        message: `rule \`${rule.id}\` is shadowed by the earlier, broader rule \`${broader.id}\` (line ${broader.location.line}) with the same decision`,
        hint: `remove \`${rule.id}\` or narrow \`${broader.id}\`` });
    }
  });
  return diagnostics;
}

/** Conditions on different kinds of items can never hold for the same item. */
function neverMatches(c: RuleConditions): string | undefined {
  const itemTypes = [c.paths || c.access ? 'paths/access (path items)' : undefined, c.command ? 'command (command items)' : undefined, c.url ? 'url (url items)' : undefined]
    .filter((t): t is string => t !== undefined);
  if (itemTypes.length > 1) return `${itemTypes.join(' and ')} never describe the same item`;
  return undefined;
}

const UNIVERSAL = new Set(['*', '**', '/**', '**/*']);

/** Whether every item `narrow` matches is matched by `broad` (both rules of `decision`), judged on the patterns as written. */
function covers(broad: RuleConditions, narrow: RuleConditions, decision: Decision): boolean {
  /** Unconstrained covers all; otherwise each value of `narrow` must be covered by one of `broad`. */
  const listCovers = <T>(b: readonly T[] | undefined, n: readonly T[] | undefined, covered: (b: T, n: T) => boolean): boolean => {
    if (b === undefined) return true;
    if (n === undefined) return false;
    return n.every((t) => b.some((w) => covered(w, t)));
  };
  const same = <T>(key: (t: T) => string) => (b: T, n: T) => key(b) === key(n);
  const text = (b: { source: string }, n: { source: string }) => UNIVERSAL.has(b.source) || b.source === n.source;
  return listCovers(broad.kind, narrow.kind, same(String))
    && listCovers(broad.access, narrow.access, same(String))
    && listCovers(broad.tool, narrow.tool, text)
    && listCovers(broad.title, narrow.title, text)
    && listCovers(broad.agent, narrow.agent, text)
    && listCovers(broad.url, narrow.url, text)
    && listCovers(broad.paths, narrow.paths, (b, n) => UNIVERSAL.has(b.source) || pathPatternCovers(b.source, n.source, decision))
    && listCovers(broad.command, narrow.command, (b, n) => b.source === n.source || patternSubsumes(b, n))
    && listCovers(broad.input, narrow.input, same((i) => `${i.fieldSource}=${i.matcher.source}`));
}

interface PatternPositions { readonly paths: SourceLocation[]; readonly command: SourceLocation[] }

/** Where each rule's `paths` and `command` values are, by rule index (the loader keeps every rule of a valid file, in order). */
function patternPositions(text: string, file: string): (PatternPositions | undefined)[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const rules = isMap(doc.contents) ? doc.contents.get('rules', true) : undefined;
  if (!isSeq(rules)) return [];
  const locate = (node: unknown): SourceLocation[] => {
    const items = isSeq(node) ? node.items : [node];
    return items.filter(isScalar).map((item) => {
      const pos = lines.linePos((item as YamlNode).range?.[0] ?? 0);
      return { file, line: pos.line, column: pos.col };
    });
  };
  return rules.items.map((rule) => {
    const match = isMap(rule) ? rule.get('match', true) : undefined;
    if (!isMap(match)) return undefined;
    return { paths: locate(match.get('paths', true)), command: locate(match.get('command', true)) };
  });
}

export function rulesWithoutExamples(policy: PolicyFile): Rule[] {
  return policy.rules.filter((r) => r.examples.match.length === 0 && r.examples.notMatch.length === 0);
}
