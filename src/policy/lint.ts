import type { Diagnostic } from './diagnostics.js';
import type { PolicyFile, Rule, RuleConditions } from './types.js';

/**
 * Warnings about rules that load but probably do not do what their author meant: conditions that
 * can never hold together, and rules made redundant by an earlier, broader rule of the same decision.
 */
export function lintPolicy(policy: PolicyFile, _text?: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  policy.rules.forEach((rule, index) => {
    const never = neverMatches(rule.match);
    if (never) {
      diagnostics.push({ severity: 'warning', code: 'never_matches', ruleId: rule.id, location: rule.location,
        message: `rule \`${rule.id}\` can never match: ${never}`, hint: 'split it into two rules' });
      return;
    }
    const broader = policy.rules.slice(0, index).find((earlier) => earlier.decision === rule.decision
      && earlier.enforcement === rule.enforcement && covers(earlier.match, rule.match));
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

/** Whether every item `narrow` matches is matched by `broad`, judged on the patterns as written. */
function covers(broad: RuleConditions, narrow: RuleConditions): boolean {
  const listCovers = <T>(b: readonly T[] | undefined, n: readonly T[] | undefined, key: (t: T) => string, universal?: (t: T) => boolean): boolean => {
    if (b === undefined) return true;
    if (n === undefined) return false;
    if (universal && b.some(universal)) return true;
    const have = new Set(b.map(key));
    return n.every((t) => have.has(key(t)));
  };
  const source = (t: { source: string }) => t.source;
  const isUniversal = (t: { source: string }) => UNIVERSAL.has(t.source);
  return listCovers(broad.kind, narrow.kind, String)
    && listCovers(broad.access, narrow.access, String)
    && listCovers(broad.tool, narrow.tool, source, isUniversal)
    && listCovers(broad.title, narrow.title, source, isUniversal)
    && listCovers(broad.agent, narrow.agent, source, isUniversal)
    && listCovers(broad.url, narrow.url, source, isUniversal)
    && listCovers(broad.paths, narrow.paths, source, isUniversal)
    && listCovers(broad.command, narrow.command, source)
    && listCovers(broad.input, narrow.input, (i) => `${i.fieldSource}=${i.matcher.source}`);
}

export function rulesWithoutExamples(policy: PolicyFile): Rule[] {
  return policy.rules.filter((r) => r.examples.match.length === 0 && r.examples.notMatch.length === 0);
}
