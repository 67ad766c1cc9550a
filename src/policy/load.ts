import type { Node as YamlNode } from 'yaml';
import { syntaxDiagnostics } from './yaml-syntax.js';
import { DECISIONS, isDecision } from '../core/decision.js';
import type { SourceLocation } from '../core/errors.js';
import type { Diagnostic } from './diagnostics.js';
import { readConditions } from './load-conditions.js';
import { readExamples } from './load-examples.js';
import type { ModeRules } from './modes.js';
import type { Enforcement, Layer, NonInteractiveFallback, PolicyFile, Rule, RuleConditions } from './types.js';
import { yamlLib } from './yaml-lib.js';
import { yamlReader } from './yaml-reader.js';

/** The keys each kind of mapping in a policy file may have (the JSON Schema test compares to these). */
export const TOP_KEYS = ['version', 'extends', 'default', 'non_interactive', 'agent_always_options', 'grant_scope', 'grant_expires_after', 'modes', 'unprompted', 'rules'] as const;
export const MODES_KEYS = ['deny', 'prefer'] as const;
const DURATION = /^(\d+)\s*(m|h|d|w)$/;
const DURATION_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
export const RULE_KEYS = ['id', 'decision', 'reason', 'enforcement', 'match', 'examples'] as const;
const ENFORCEMENTS: readonly Enforcement[] = ['enforce', 'warn', 'shadow'];
const FALLBACKS: readonly NonInteractiveFallback[] = ['deny', 'cancel'];
const SETTINGS: readonly PolicySetting[] = ['default', 'non_interactive', 'agent_always_options', 'grant_scope', 'grant_expires_after', 'modes', 'unprompted'];
const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/** The top-level settings whose values combine across files (see policy/extends.ts). */
export type PolicySetting = 'default' | 'non_interactive' | 'agent_always_options' | 'grant_scope' | 'grant_expires_after' | 'modes' | 'unprompted';

/** One `extends:` entry as written: a bundled policy's name or a path relative to the file. */
export interface ExtendsRef {
  readonly name: string;
  readonly location: SourceLocation;
}

export interface LoadResult {
  /** Present when the file has no errors. */
  readonly policy: PolicyFile | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** The policies this one builds on, in the order written (resolved by policy/extends.ts). */
  readonly extends: readonly ExtendsRef[];
  /** The settings the file writes itself (the others hold the loader's defaults). */
  readonly settings: ReadonlySet<PolicySetting>;
}

/** Parse and validate one policy document. Every problem is reported at once, with file:line:column. */
export function loadPolicyText(text: string, file: string, layer: Layer): LoadResult {
  const { isMap, isScalar, isSeq, LineCounter, parseDocument } = yamlLib();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const diagnostics: Diagnostic[] = [];
  const reader = yamlReader(file, lines, diagnostics);
  const { at, report, checkKeys, scalarString, stringList, oneOf } = reader;

  diagnostics.push(...syntaxDiagnostics(doc.errors, text, file, lines));
  if (doc.errors.length > 0) return { policy: undefined, diagnostics, extends: [], settings: new Set() };

  const root = doc.contents;
  if (!isMap(root)) {
    report('not_a_map', root, 'a policy must be a YAML mapping with `version: 1` and `rules:`', 'start the file with `version: 1`');
    return { policy: undefined, diagnostics, extends: [], settings: new Set() };
  }

  const top = checkKeys(root, TOP_KEYS, 'policy');
  const version = top.get('version');
  if (!version) report('missing_key', root, 'missing `version`', 'add `version: 1` at the top of the file');
  else if (!(isScalar(version.node) && version.node.value === 1)) {
    report('bad_value', version.node, 'unsupported policy `version`', 'this broker reads `version: 1`');
  }
  const extendsNode = top.get('extends');
  const extendsRefs: ExtendsRef[] = [];
  if (extendsNode && isSeq(extendsNode.node) && extendsNode.node.items.length === 0) {
    report('bad_value', extendsNode.node, '`extends` is an empty list', 'name the policies this one builds on, e.g. `extends: [default]`, or remove the key');
  } else if (extendsNode) {
    for (const { value, node } of stringList(extendsNode.node, '`extends`') ?? []) extendsRefs.push({ name: value, location: at(node) });
  }
  const settings = new Set(SETTINGS.filter((key) => top.has(key)));
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
    else match = readConditions(reader, matchEntry.node, ruleLabel, id);
    const examples = keys.get('examples') ? readExamples(reader, keys.get('examples')!.node, ruleLabel, id) : { match: [], notMatch: [] };
    if (id !== undefined && decision !== undefined && enforcement !== undefined && match && isDecision(decision)) {
      rules.push({ id, decision, reason, enforcement, match, examples, location: at(ruleNode), layer, file });
    }
  });

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
    return { policy: undefined, diagnostics, extends: extendsRefs, settings };
  }
  return {
    policy: {
      file, layer, default: defaultDecision, nonInteractive, keepAgentAlwaysOptions: agentAlways === 'keep', grantScope,
      ...(grantTtlMs !== undefined ? { grantTtlMs } : {}), ...(modes ? { modes } : {}), ...(unprompted ? { unprompted } : {}), rules,
    },
    diagnostics, extends: extendsRefs, settings,
  };
}
