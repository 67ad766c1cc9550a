import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DECISIONS } from '../../src/core/decision.js';
import { ACCESSES, TOOL_KINDS } from '../../src/core/facts.js';
import { MATCH_KEYS } from '../../src/policy/load-conditions.js';
import { EXAMPLE_KEYS, EXAMPLES_KEYS } from '../../src/policy/load-examples.js';
import { loadPolicyText, MODES_KEYS, RULE_KEYS, TOP_KEYS } from '../../src/policy/load.js';
import { POLICY_SCHEMA_URL, schemaLineFor } from '../../src/policy/schema-ref.js';
import { ROOT } from '../helpers/cli.js';

interface SchemaNode { properties?: Record<string, SchemaNode>; additionalProperties?: unknown; enum?: unknown[]; $defs?: Record<string, SchemaNode> }
const SCHEMA_FILE = join(ROOT, 'schema', 'policy.schema.json');
const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as SchemaNode & { $defs: Record<string, SchemaNode> };
const validate = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }).compile(schema);

/** Every policy file the package ships or shows: policies/*.yaml and examples/**.yaml. */
function shippedPolicies(): string[] {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.yaml') ? [path] : [];
  });
  return [...walk(join(ROOT, 'policies')), ...walk(join(ROOT, 'examples'))];
}

describe('the policy JSON Schema', () => {
  it('has exactly the keys the loader accepts, for every kind of mapping, and none of any other', () => {
    const keys = (node: SchemaNode | undefined) => Object.keys(node?.properties ?? {}).sort();
    expect(keys(schema)).toEqual([...TOP_KEYS].sort());
    expect(keys(schema.$defs.modes)).toEqual([...MODES_KEYS].sort());
    expect(keys(schema.$defs.rule)).toEqual([...RULE_KEYS].sort());
    expect(keys(schema.$defs.match)).toEqual([...MATCH_KEYS].sort());
    expect(keys(schema.$defs.examples)).toEqual([...EXAMPLES_KEYS].sort());
    expect(keys(schema.$defs.example)).toEqual([...EXAMPLE_KEYS].sort());
    for (const node of [schema, ...['modes', 'rule', 'match', 'examples', 'example'].map((d) => schema.$defs[d]!)]) {
      expect(node.additionalProperties).toBe(false);
    }
  });

  it('has the loader\'s vocabularies', () => {
    expect(schema.$defs.decision!.enum).toEqual([...DECISIONS]);
    expect(schema.$defs.kind!.enum).toEqual([...TOOL_KINDS]);
    expect(schema.$defs.access!.enum).toEqual([...ACCESSES]);
  });

  it('every bundled and example policy validates against it, and loads', () => {
    const files = shippedPolicies();
    expect(files.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['policies/default.yaml', 'policies/ci-strict.yaml', 'policies/enterprise-baseline.yaml', 'examples/layers/user-policy.yaml']));
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(validate(parse(text)) ? [] : validate.errors, file).toEqual([]);
      expect(loadPolicyText(text, file, 'user').diagnostics, file).toEqual([]);
    }
  });

  it('rejects what the loader rejects, and accepts `extends` as a name or a list', () => {
    const cases: [string, boolean][] = [
      ['version: 1\nextends: default\n', true],
      ['version: 1\nextends: [default, ./team.yaml]\nrules:\n  - { id: a, decision: deny, match: { command: "git push --force" } }\n', true],
      ['version: 1\ndefualt: ask\n', false],
      ['version: 1\nrules:\n  - { id: a, decision: alow, match: { kind: read } }\n', false],
      ['version: 1\nrules:\n  - { id: a, decision: deny, match: { comand: ls } }\n', false],
      ['version: 1\nrules:\n  - { id: a, decision: deny, match: {} }\n', false],
      ['version: 1\nrules:\n  - { id: a, decision: deny, match: { kind: exec } }\n', false],
      ['version: 2\n', false],
      ['version: 1\ngrant_expires_after: 3 days\n', false],
      ['version: 1\ngrant_expires_after: 30d\n', true],
    ];
    for (const [text, ok] of cases) {
      expect(validate(parse(text)), text).toBe(ok);
      expect(loadPolicyText(text, 'p.yaml', 'user').policy !== undefined, text).toBe(ok);
    }
  });

  it('is shipped, and each bundled policy names it on its first line by a path that holds where the package is installed', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schema');
    expect(resolve(ROOT, 'policies', POLICY_SCHEMA_URL)).toBe(SCHEMA_FILE);
    for (const name of readdirSync(join(ROOT, 'policies'))) {
      expect(readFileSync(join(ROOT, 'policies', name), 'utf8').split('\n')[0], name).toBe(`# yaml-language-server: $schema=${POLICY_SCHEMA_URL}`);
    }
  });

  it('the modeline for a new policy file: relative inside the package, the installed schema\'s absolute path elsewhere', () => {
    expect(schemaLineFor(join(ROOT, 'policies'))).toBe(`# yaml-language-server: $schema=${POLICY_SCHEMA_URL}`);
    expect(schemaLineFor('/home/u/.config/acp-broker')).toBe(`# yaml-language-server: $schema=${SCHEMA_FILE}`);
  });
});
