import { posix } from 'node:path';
import type { Access, CallFacts, PathFact, ToolKind } from '../core/facts.js';
import type { ShellAnalyzer } from '../shell/types.js';
import type { Diagnostic } from './diagnostics.js';
import { conditionsHold } from './conditions.js';
import { itemsOf } from './items.js';
import type { ExampleFacts, PolicyFile, Rule } from './types.js';

/** The fixed workspace and home that `${workspace}` and `~` mean in examples. */
const EXAMPLE_WORKSPACE = '/workspace';
const EXAMPLE_HOME = '/home/user';

/** Facts for an example, analysed exactly as a real call would be. */
function exampleFacts(example: ExampleFacts, shell: ShellAnalyzer): CallFacts {
  const kind: ToolKind = example.kind ?? (example.command !== undefined ? 'execute' : example.url !== undefined ? 'fetch' : 'other');
  const access: Access = example.access ?? (kind === 'read' || kind === 'search' || kind === 'fetch' ? 'read' : kind === 'delete' ? 'delete' : 'write');
  const paths: PathFact[] = (example.paths ?? []).map((raw) => ({ path: resolveExamplePath(raw), access, origin: 'rawInput' }));
  const command = example.command?.split('${workspace}').join(EXAMPLE_WORKSPACE);
  const analysis = command !== undefined ? shell.analyze(command, { cwd: EXAMPLE_WORKSPACE, home: EXAMPLE_HOME }) : undefined;
  for (const r of analysis?.redirections ?? []) paths.push({ path: r.path, access: r.access, origin: 'redirect', ...(r.glob ? { glob: true } : {}) });
  return {
    kind, tool: example.tool, title: example.title, agent: example.agent, workspace: EXAMPLE_WORKSPACE, paths,
    commands: analysis?.commands ?? [], urls: example.url !== undefined ? [example.url] : [], input: example.input,
    shellLine: command, shell: analysis, unresolvable: analysis?.unresolvable ?? [],
  };
}

function resolveExamplePath(raw: string): string {
  let p = raw.replace('${workspace}', EXAMPLE_WORKSPACE);
  if (p === '~' || p.startsWith('~/')) p = EXAMPLE_HOME + p.slice(1);
  return posix.resolve(EXAMPLE_WORKSPACE, p);
}

/** Whether a rule's conditions hold for at least one item of the example. */
export function ruleMatchesExample(rule: Rule, example: ExampleFacts, shell: ShellAnalyzer): boolean {
  const facts = exampleFacts(example, shell);
  const context = { workspace: EXAMPLE_WORKSPACE, home: EXAMPLE_HOME };
  return itemsOf(facts).some((item) => conditionsHold(rule.match, item, facts, context, rule.decision === 'allow'));
}

/** Every rule's `examples`: a `match` example that does not match, or a `not_match` that does, is an error. */
export function checkExamples(policy: PolicyFile, shell: ShellAnalyzer): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const rule of policy.rules) {
    for (const example of rule.examples.match) {
      if (!ruleMatchesExample(rule, example, shell)) {
        diagnostics.push({
          severity: 'error', code: 'example_failed', ruleId: rule.id, location: example.location,
          message: `rule \`${rule.id}\`: example ${describeExample(example)} should match but does not`,
          hint: 'fix the rule\'s `match` conditions or move the example to `not_match`',
        });
      }
    }
    for (const example of rule.examples.notMatch) {
      if (ruleMatchesExample(rule, example, shell)) {
        diagnostics.push({
          severity: 'error', code: 'example_failed', ruleId: rule.id, location: example.location,
          message: `rule \`${rule.id}\`: example ${describeExample(example)} should not match but does`,
          hint: 'narrow the rule\'s `match` conditions or move the example to `match`',
        });
      }
    }
  }
  return diagnostics;
}

export function describeExample(example: ExampleFacts): string {
  const { location: _location, ...facts } = example;
  return JSON.stringify(facts);
}
