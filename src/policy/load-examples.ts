import type { Node as YamlNode } from 'yaml';
import { ACCESSES, TOOL_KINDS } from '../core/facts.js';
import type { ExampleFacts, Rule } from './types.js';
import { yamlLib } from './yaml-lib.js';
import type { YamlReader } from './yaml-reader.js';

/** The keys of a rule's `examples` mapping, and of each example in it. */
export const EXAMPLES_KEYS = ['match', 'not_match'] as const;
export const EXAMPLE_KEYS = ['kind', 'tool', 'title', 'agent', 'paths', 'access', 'command', 'url', 'input'] as const;

/** A rule's `examples`: fact sets it must (`match`) and must not (`not_match`) match. */
export function readExamples(r: YamlReader, node: YamlNode | null, ruleLabel: string, ruleId?: string): Rule['examples'] {
  const { report, checkKeys } = r;
  const { isMap, isSeq } = yamlLib();
  const result: { match: ExampleFacts[]; notMatch: ExampleFacts[] } = { match: [], notMatch: [] };
  if (!isMap(node)) {
    report('not_a_map', node, `${ruleLabel} \`examples\` must have \`match\` and/or \`not_match\` lists`, undefined, 'error', ruleId);
    return result;
  }
  const keys = checkKeys(node, EXAMPLES_KEYS, `${ruleLabel} examples`, ruleId);
  for (const [key, target] of [['match', result.match], ['not_match', result.notMatch]] as const) {
    const entry = keys.get(key);
    if (!entry) continue;
    if (!isSeq(entry.node)) { report('bad_value', entry.node, `${ruleLabel} \`examples.${key}\` must be a list of fact sets`, undefined, 'error', ruleId); continue; }
    for (const exampleNode of entry.node.items as YamlNode[]) {
      const example = readExample(r, exampleNode, `${ruleLabel} example`, ruleId);
      if (example) target.push(example);
    }
  }
  return result;
}

function readExample(r: YamlReader, node: YamlNode, what: string, ruleId?: string): ExampleFacts | undefined {
  const { at, report, checkKeys, oneOf, scalarString, stringList } = r;
  const { isMap } = yamlLib();
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
