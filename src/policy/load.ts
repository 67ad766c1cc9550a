import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode, type Pair } from 'yaml';
import { DECISIONS, isDecision } from '../core/decision.js';
import { ACCESSES, TOOL_KINDS } from '../core/facts.js';
import type { SourceLocation } from '../core/errors.js';
import { parseCommandPattern, type CommandPattern } from '../shell/command-pattern.js';
import { didYouMean, type Diagnostic, type DiagnosticCode } from './diagnostics.js';
import type { ModeRules } from './modes.js';
import { compilePathMatcher, compileTextMatcher, compileUrlMatcher } from './patterns.js';
import type {
  Enforcement, ExampleFacts, InputCondition, Layer, NonInteractiveFallback, PathMatcher, PolicyFile, Rule,
  RuleConditions, TextMatcher,
} from './types.js';

const TOP_KEYS = ['version', 'default', 'non_interactive', 'agent_always_options', 'grant_scope', 'grant_expires_after', 'modes', 'unprompted', 'rules'] as const;
const MODES_KEYS = ['deny', 'prefer'] as const;
const DURATION = /^(\d+)\s*(m|h|d|w)$/;
const DURATION_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RULE_KEYS = ['id', 'decision', 'reason', 'enforcement', 'match', 'examples'] as const;
const MATCH_KEYS = ['kind', 'tool', 'title', 'agent', 'paths', 'access', 'command', 'url', 'input'] as const;
const EXAMPLE_KEYS = ['kind', 'tool', 'title', 'agent', 'paths', 'access', 'command', 'url', 'input'] as const;
const ENFORCEMENTS: readonly Enforcement[] = ['enforce', 'warn', 'shadow'];
const FALLBACKS: readonly NonInteractiveFallback[] = ['deny', 'cancel'];
const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export interface LoadResult {
  /** Present when the file has no errors. */
  readonly policy: PolicyFile | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** Parse and validate one policy document. Every problem is reported at once, with file:line:column. */
export function loadPolicyText(text: string, file: string, layer: Layer): LoadResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const diagnostics: Diagnostic[] = [];
  const at = (node: YamlNode | Pair | null | undefined): SourceLocation => {
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range
      ?? ((node as Pair | undefined)?.key as YamlNode | undefined)?.range;
    const pos = lines.linePos(range ? range[0] : 0);
    return { file, line: pos.line, column: pos.col };
  };
  const report = (code: DiagnosticCode, node: YamlNode | Pair | null | undefined, message: string, hint?: string, severity: 'error' | 'warning' = 'error', ruleId?: string) => {
    diagnostics.push({ severity, code, message, location: at(node), ...(hint ? { hint } : {}), ...(ruleId ? { ruleId } : {}) });
  };

  for (const error of doc.errors) {
    const pos = error.linePos?.[0] ?? { line: 1, col: 1 };
    diagnostics.push({
      severity: 'error', code: 'yaml_syntax', message: `YAML syntax: ${error.message.split('\n')[0]}`,
      location: { file, line: pos.line, column: pos.col }, hint: 'fix the YAML syntax at this position',
    });
  }
  if (doc.errors.length > 0) return { policy: undefined, diagnostics };

  const root = doc.contents;
  if (!isMap(root)) {
    report('not_a_map', root, 'a policy must be a YAML mapping with `version: 1` and `rules:`', 'start the file with `version: 1`');
    return { policy: undefined, diagnostics };
  }

  /** Check a mapping's keys against the allowed ones, with "did you mean". */
  const checkKeys = (map: YamlNode, allowed: readonly string[], what: string, ruleId?: string): Map<string, { node: YamlNode | null; pair: Pair }> => {
    const found = new Map<string, { node: YamlNode | null; pair: Pair }>();
    if (!isMap(map)) return found;
    for (const pair of map.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined) {
        report('bad_value', pair.key as YamlNode, `${what}: keys must be plain strings`, undefined, 'error', ruleId);
        continue;
      }
      if (!allowed.includes(key)) {
        const guess = didYouMean(key, allowed);
        report('unknown_key', pair.key as YamlNode, `${what}: unknown key \`${key}\``,
          guess ? `did you mean \`${guess}\`?` : `allowed keys: ${allowed.join(', ')}`, 'error', ruleId);
        continue;
      }
      found.set(key, { node: pair.value as YamlNode | null, pair });
    }
    return found;
  };

  const scalarString = (node: YamlNode | null, what: string, ruleId?: string): string | undefined => {
    if (isScalar(node) && (typeof node.value === 'string' || typeof node.value === 'number' || typeof node.value === 'boolean')) {
      return String(node.value);
    }
    report('bad_value', node, `${what} must be a string`, undefined, 'error', ruleId);
    return undefined;
  };

  /** A scalar or a list of scalars ("any of"). */
  const stringList = (node: YamlNode | null, what: string, ruleId?: string): { value: string; node: YamlNode }[] | undefined => {
    const items = isSeq(node) ? node.items as YamlNode[] : [node];
    const out: { value: string; node: YamlNode }[] = [];
    for (const item of items) {
      const value = scalarString(item, what, ruleId);
      if (value === undefined) return undefined;
      out.push({ value, node: item as YamlNode });
    }
    if (out.length === 0) {
      report('bad_value', node, `${what} is an empty list, so the rule could never match`, 'remove the key or list at least one value', 'error', ruleId);
      return undefined;
    }
    return out;
  };

  const oneOf = <T extends string>(node: YamlNode | null, allowed: readonly T[], what: string, ruleId?: string): T | undefined => {
    const value = scalarString(node, what, ruleId);
    if (value === undefined) return undefined;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    const guess = didYouMean(value, allowed);
    report('bad_value', node, `${what}: \`${value}\` is not one of ${allowed.join(', ')}`,
      guess ? `did you mean \`${guess}\`?` : undefined, 'error', ruleId);
    return undefined;
  };

  const top = checkKeys(root, TOP_KEYS, 'policy');
  const version = top.get('version');
  if (!version) report('missing_key', root, 'missing `version`', 'add `version: 1` at the top of the file');
  else if (!(isScalar(version.node) && version.node.value === 1)) {
    report('bad_value', version.node, 'unsupported policy `version`', 'this broker reads `version: 1`');
  }
  const defaultNode = top.get('default');
  const defaultDecision = defaultNode ? oneOf(defaultNode.node, DECISIONS, '`default`') : 'ask';
  const fallbackNode = top.get('non_interactive');
  const nonInteractive = fallbackNode ? oneOf(fallbackNode.node, FALLBACKS, '`non_interactive`') : 'deny';
  const alwaysNode = top.get('agent_always_options');
  const agentAlways = alwaysNode ? oneOf(alwaysNode.node, ['replace', 'keep'] as const, '`agent_always_options`') : 'replace';
  const scopeNode = top.get('grant_scope');
  const grantScope = scopeNode ? oneOf(scopeNode.node, ['project', 'global'] as const, '`grant_scope`') : 'project';
  const ttlNode = top.get('grant_expires_after');
  let grantTtlMs: number | undefined;
  if (ttlNode) {
    const text = scalarString(ttlNode.node, '`grant_expires_after`');
    const match = text === undefined ? null : DURATION.exec(text.trim());
    if (match && Number(match[1]) > 0) grantTtlMs = Number(match[1]) * DURATION_MS[match[2]!]!;
    else if (text !== undefined) report('bad_value', ttlNode.node, `\`grant_expires_after\`: \`${text}\` is not a duration`, 'write a number and a unit: 90m, 12h, 30d or 2w');
  }

  const modesNode = top.get('modes');
  const modes = modesNode ? readModes(modesNode.node) : undefined;
  const unpromptedNode = top.get('unprompted');
  const unprompted = unpromptedNode ? oneOf(unpromptedNode.node, ['warn', 'stop'] as const, '`unprompted`') : undefined;

  const rules: Rule[] = [];
  const rulesNode = top.get('rules');
  if (rulesNode && rulesNode.node !== null && !isSeq(rulesNode.node)) {
    report('bad_value', rulesNode.node, '`rules` must be a list', 'write each rule as a `- id: …` list item');
  }
  const seenIds = new Map<string, SourceLocation>();
  const ruleNodes = rulesNode && isSeq(rulesNode.node) ? rulesNode.node.items as YamlNode[] : [];
  ruleNodes.forEach((ruleNode, index) => {
    if (!isMap(ruleNode)) {
      report('not_a_map', ruleNode, `rule #${index + 1} must be a mapping`, 'write `- id: my-rule` followed by `decision:` and `match:`');
      return;
    }
    const keys = checkKeys(ruleNode, RULE_KEYS, `rule #${index + 1}`);
    const idEntry = keys.get('id');
    const id = idEntry ? scalarString(idEntry.node, '`id`') : undefined;
    if (!idEntry) report('missing_key', ruleNode, `rule #${index + 1} has no \`id\``, 'give every rule a unique `id:`; it appears in every explanation');
    else if (id !== undefined && !RULE_ID.test(id)) report('bad_value', idEntry.node, `rule id \`${id}\` may only use letters, digits, _ . : -`);
    if (id !== undefined && idEntry) {
      const previous = seenIds.get(id);
      if (previous) report('duplicate_id', idEntry.node, `duplicate rule id \`${id}\` (first at line ${previous.line})`, 'give each rule its own id so explanations and audit events name one rule', 'warning', id);
      else seenIds.set(id, at(idEntry.node));
    }
    const ruleLabel = `rule \`${id ?? `#${index + 1}`}\``;
    const decisionEntry = keys.get('decision');
    if (!decisionEntry) report('missing_key', ruleNode, `${ruleLabel} has no \`decision\``, 'add `decision: allow`, `ask` or `deny`', 'error', id);
    const decision = decisionEntry ? oneOf(decisionEntry.node, DECISIONS, `${ruleLabel} \`decision\``, id) : undefined;
    const reasonEntry = keys.get('reason');
    const reason = reasonEntry ? scalarString(reasonEntry.node, `${ruleLabel} \`reason\``, id) : undefined;
    const enforcementEntry = keys.get('enforcement');
    const enforcement = enforcementEntry ? oneOf(enforcementEntry.node, ENFORCEMENTS, `${ruleLabel} \`enforcement\``, id) : 'enforce';
    const matchEntry = keys.get('match');
    let match: RuleConditions | undefined;
    if (!matchEntry) report('missing_key', ruleNode, `${ruleLabel} has no \`match\``, 'add `match:` with at least one condition (kind, paths, command, …)', 'error', id);
    else match = readConditions(matchEntry.node, ruleLabel, id);
    const examples = keys.get('examples') ? readExamples(keys.get('examples')!.node, ruleLabel, id) : { match: [], notMatch: [] };
    if (id !== undefined && decision !== undefined && enforcement !== undefined && match && isDecision(decision)) {
      rules.push({ id, decision, reason, enforcement, match, examples, location: at(ruleNode), layer, file });
    }
  });

  function readConditions(node: YamlNode | null, ruleLabel: string, ruleId?: string): RuleConditions | undefined {
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
        if ('error' in compiled) { report('bad_pattern', valueNode, `${ruleLabel} \`paths\`: ${compiled.error}`, 'write `/abs/**`, `~/…`, `${workspace}/…`, `**/name` or a bare file name', 'error', ruleId); ok = false; }
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

  function readExamples(node: YamlNode | null, ruleLabel: string, ruleId?: string): Rule['examples'] {
    const result: { match: ExampleFacts[]; notMatch: ExampleFacts[] } = { match: [], notMatch: [] };
    if (!isMap(node)) {
      report('not_a_map', node, `${ruleLabel} \`examples\` must have \`match\` and/or \`not_match\` lists`, undefined, 'error', ruleId);
      return result;
    }
    const keys = checkKeys(node, ['match', 'not_match'], `${ruleLabel} examples`, ruleId);
    for (const [key, target] of [['match', result.match], ['not_match', result.notMatch]] as const) {
      const entry = keys.get(key);
      if (!entry) continue;
      if (!isSeq(entry.node)) { report('bad_value', entry.node, `${ruleLabel} \`examples.${key}\` must be a list of fact sets`, undefined, 'error', ruleId); continue; }
      for (const exampleNode of entry.node.items as YamlNode[]) {
        const example = readExample(exampleNode, `${ruleLabel} example`, ruleId);
        if (example) target.push(example);
      }
    }
    return result;
  }

  function readExample(node: YamlNode, what: string, ruleId?: string): ExampleFacts | undefined {
    if (!isMap(node)) { report('not_a_map', node, `${what} must be a mapping of facts`, 'e.g. `{ kind: read, paths: ["/repo/.env"] }`', 'error', ruleId); return undefined; }
    const keys = checkKeys(node, EXAMPLE_KEYS, what, ruleId);
    const example: { -readonly [K in keyof ExampleFacts]: ExampleFacts[K] } = { location: at(node) };
    const kind = keys.get('kind');
    if (kind) example.kind = oneOf(kind.node, TOOL_KINDS, `${what} \`kind\``, ruleId);
    const access = keys.get('access');
    if (access) example.access = oneOf(access.node, ACCESSES, `${what} \`access\``, ruleId);
    for (const key of ['tool', 'title', 'agent', 'command', 'url'] as const) {
      const entry = keys.get(key);
      if (entry) example[key] = scalarString(entry.node, `${what} \`${key}\``, ruleId);
    }
    const paths = keys.get('paths');
    if (paths) example.paths = stringList(paths.node, `${what} \`paths\``, ruleId)?.map((p) => p.value);
    const input = keys.get('input');
    if (input) example.input = input.node ? (input.node as YamlNode & { toJSON(): unknown }).toJSON() : null;
    return example;
  }

  /** `modes: { deny: [...], prefer: [...] }`: mode ids, as the agents spell them. */
  function readModes(node: YamlNode | null): ModeRules | undefined {
    if (!isMap(node)) {
      report('not_a_map', node, '`modes` must be a mapping', 'e.g. `modes: { deny: [bypassPermissions, yolo, full-access] }`');
      return undefined;
    }
    const keys = checkKeys(node, MODES_KEYS, '`modes`');
    const ids = (entry: { node: YamlNode | null } | undefined, what: string) => entry ? stringList(entry.node, `\`modes\` \`${what}\``)?.map((v) => v.value) ?? [] : [];
    return { deny: ids(keys.get('deny'), 'deny'), prefer: ids(keys.get('prefer'), 'prefer') };
  }

  const hasErrors = diagnostics.some((d) => d.severity === 'error');
  if (hasErrors || defaultDecision === undefined || nonInteractive === undefined || agentAlways === undefined || grantScope === undefined) {
    return { policy: undefined, diagnostics };
  }
  return {
    policy: {
      file, layer, default: defaultDecision, nonInteractive, keepAgentAlwaysOptions: agentAlways === 'keep', grantScope,
      ...(grantTtlMs !== undefined ? { grantTtlMs } : {}), ...(modes ? { modes } : {}), ...(unprompted ? { unprompted } : {}), rules,
    },
    diagnostics,
  };
}
