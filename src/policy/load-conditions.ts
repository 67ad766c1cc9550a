import type { Node as YamlNode } from 'yaml';
import { ACCESSES, TOOL_KINDS } from '../core/facts.js';
import { parseCommandPattern, type CommandPattern } from '../shell/command-pattern.js';
import { didYouMean } from './diagnostics.js';
import { compilePathMatcher, compileTextMatcher, compileUrlMatcher } from './patterns.js';
import type { InputCondition, PathMatcher, RuleConditions, TextMatcher } from './types.js';
import { yamlLib } from './yaml-lib.js';
import type { YamlReader } from './yaml-reader.js';

export const MATCH_KEYS = ['kind', 'tool', 'title', 'agent', 'paths', 'access', 'command', 'url', 'input'] as const;

/** A rule's `match`: each condition compiled; undefined (with diagnostics) when any is wrong. */
export function readConditions(r: YamlReader, node: YamlNode | null, ruleLabel: string, ruleId?: string): RuleConditions | undefined {
  const { report, checkKeys, scalarString, stringList } = r;
  const { isMap, isScalar } = yamlLib();
  if (!isMap(node)) {
    report('not_a_map', node, `${ruleLabel} \`match\` must be a mapping of conditions`, 'e.g. `match: { kind: execute, command: ["npm test"] }`', 'error', ruleId);
    return undefined;
  }
  const keys = checkKeys(node, MATCH_KEYS, `${ruleLabel} match`, ruleId);
  if (keys.size === 0 && node.items.length === 0) {
    report('bad_value', node, `${ruleLabel} has an empty \`match\`, which would match every call`, 'add a condition; to match everything write `kind: [read, edit, delete, move, search, execute, think, fetch, switch_mode, other]`', 'error', ruleId);
    return undefined;
  }
  let ok = true;
  const conditions: { -readonly [K in keyof RuleConditions]: RuleConditions[K] } = {};
  const texts = (key: 'tool' | 'title' | 'agent' | 'url'): TextMatcher[] | undefined => {
    const entry = keys.get(key);
    if (!entry) return undefined;
    const values = stringList(entry.node, `${ruleLabel} \`${key}\``, ruleId);
    if (!values) { ok = false; return undefined; }
    const out: TextMatcher[] = [];
    for (const { value, node: valueNode } of values) {
      const compiled = key === 'url' ? compileUrlMatcher(value) : compileTextMatcher(value);
      if ('error' in compiled) { report('bad_pattern', valueNode, `${ruleLabel} \`${key}\`: ${compiled.error}`, undefined, 'error', ruleId); ok = false; }
      else out.push(compiled);
    }
    return out;
  };
  /** A closed vocabulary (kinds, accesses): each value checked, with "did you mean". */
  const enumList = <T extends string>(key: 'kind' | 'access', allowed: readonly T[], what: string): T[] | undefined => {
    const entry = keys.get(key);
    if (!entry) return undefined;
    const values = stringList(entry.node, `${ruleLabel} \`${key}\``, ruleId);
    if (!values) { ok = false; return []; }
    const out: T[] = [];
    for (const { value, node: valueNode } of values) {
      if ((allowed as readonly string[]).includes(value)) { out.push(value as T); continue; }
      const guess = didYouMean(value, allowed);
      report('bad_value', valueNode, `${ruleLabel} \`${key}\`: \`${value}\` is not ${what}`, guess ? `did you mean \`${guess}\`?` : `one of: ${allowed.join(', ')}`, 'error', ruleId);
      ok = false;
    }
    return out;
  };
  const kinds = enumList('kind', TOOL_KINDS, 'an ACP tool kind');
  if (kinds) conditions.kind = kinds;
  const accesses = enumList('access', ACCESSES, 'read, write or delete');
  if (accesses) conditions.access = accesses;
  for (const key of ['tool', 'title', 'agent', 'url'] as const) {
    const compiled = texts(key);
    if (compiled) conditions[key] = compiled;
  }
  const pathsEntry = keys.get('paths');
  if (pathsEntry) {
    const values = stringList(pathsEntry.node, `${ruleLabel} \`paths\``, ruleId);
    const matchers: PathMatcher[] = [];
    for (const { value, node: valueNode } of values ?? []) {
      const compiled = compilePathMatcher(value);
      if ('error' in compiled) { report('bad_pattern', valueNode, `${ruleLabel} \`paths\`: ${compiled.error}`, compiled.hint ?? 'write `/abs/**`, `~/…`, `${workspace}/…`, `**/name` or a bare file name', 'error', ruleId); ok = false; }
      else matchers.push(compiled);
    }
    if (!values) ok = false;
    conditions.paths = matchers;
  }
  const commandEntry = keys.get('command');
  if (commandEntry) {
    const values = stringList(commandEntry.node, `${ruleLabel} \`command\``, ruleId);
    const patterns: CommandPattern[] = [];
    for (const { value, node: valueNode } of values ?? []) {
      const parsed = parseCommandPattern(value);
      if ('error' in parsed) { report('bad_pattern', valueNode, `${ruleLabel} \`command\` \`${value}\`: ${parsed.error}`, 'write the command words, e.g. "git push --force"', 'error', ruleId); ok = false; }
      else patterns.push(parsed);
    }
    if (!values) ok = false;
    conditions.command = patterns;
  }
  const inputEntry = keys.get('input');
  if (inputEntry) {
    if (!isMap(inputEntry.node)) {
      report('not_a_map', inputEntry.node, `${ruleLabel} \`input\` must map rawInput fields to patterns`, 'e.g. `input: { "description": "/deploy/i" }`', 'error', ruleId);
      ok = false;
    } else {
      const inputs: InputCondition[] = [];
      for (const pair of inputEntry.node.items) {
        const field = isScalar(pair.key) ? String(pair.key.value) : '';
        const value = scalarString(pair.value as YamlNode, `${ruleLabel} \`input.${field}\``, ruleId);
        if (!field || value === undefined) { ok = false; continue; }
        const compiled = compileTextMatcher(value);
        if ('error' in compiled) { report('bad_pattern', pair.value as YamlNode, `${ruleLabel} \`input.${field}\`: ${compiled.error}`, undefined, 'error', ruleId); ok = false; continue; }
        inputs.push({ field: field.split('.'), fieldSource: field, matcher: compiled });
      }
      conditions.input = inputs;
    }
  }
  return ok ? conditions : undefined;
}
