/**
 * evaluate() tests an item only against the rules an index says can match it (by item type, call
 * kind and program name). The index must be invisible: for random policies and calls, every item's
 * matches (and so every decision and explanation) equal those of a plain loop over all rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallFacts, PathFact, ToolKind } from '../../src/core/facts.js';
import { conditionsHold, evaluate } from '../../src/policy/evaluate.js';
import { describeItem, itemsOf } from '../../src/policy/items.js';
import { loadPolicyText } from '../../src/policy/load.js';
import type { PolicyFile, PolicySet, Rule } from '../../src/policy/types.js';
import type { SimpleCommand } from '../../src/shell/types.js';

const RUNS = Number(process.env.POLICY_PROPERTY_RUNS ?? 500);
const HOME = '/home/u';
const WORKSPACE = '/w';
const KINDS: ToolKind[] = ['execute', 'read', 'edit', 'fetch', 'switch_mode', 'other'];
const PROGRAMS = ['git', 'npm', 'rm', 'curl', 'ls', 'sudo'];
const PATTERN_PROGRAMS = [...PROGRAMS, '/usr/bin/git', './git', 'tools/npm', 'g*', '*', 'np?', "'*'", 'r*m', 'rm*'];
const PATTERN_REST = ['', ' status', ' push --force', ' -rf /', ' run *', ' *', ' -X POST', ' install', ' --force', ' -rf ~', ' -rf /w'];
const ARGV0 = [...PROGRAMS, '/usr/bin/git', '/bin/rm', './git', 'tools/npm', '/opt/x/npm', '*', 'g*', 'np?'];
const ARGS = ['status', 'push', '--force', '-rf', '/', 'run', 'test', '-X', 'POST', 'install', 'x', '.', '..', '~', '$X'];
const PATHS = ['/w/a.txt', '/w/dir0/x', '/etc/passwd', '/home/u/.ssh/id_rsa', '/tmp/x', '/w/.env'];
const PATH_PATTERNS = ['${workspace}/**', '/etc/**', '~/.ssh/**', '**/.env', '*.txt', '/tmp/**', 'dir0/**'];

const q = (s: string) => JSON.stringify(s);
const list = <T>(arb: fc.Arbitrary<T>, max = 3) => fc.uniqueArray(arb, { minLength: 1, maxLength: max });

const kinds = list(fc.constantFrom(...KINDS));
const commands = list(fc.tuple(fc.constantFrom(...PATTERN_PROGRAMS), fc.constantFrom(...PATTERN_REST)).map(([p, r]) => p + r));
const paths = list(fc.constantFrom(...PATH_PATTERNS));
const access = list(fc.constantFrom('read', 'write', 'delete'));
const urls = list(fc.constantFrom('https://docs.*', '*.example.com', '*'));
const titles = list(fc.constantFrom('/danger/i', 'run *', '*'));

/** One rule's `match`, as YAML flow mapping: mostly conditions that can hold, sometimes anything. */
const match = fc
  .oneof(
    { weight: 5, arbitrary: fc.record({ kind: kinds, command: commands }, { requiredKeys: ['command'] }) },
    { weight: 2, arbitrary: fc.record({ kind: kinds, paths, access }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.record({ kind: kinds, url: urls }, { requiredKeys: ['url'] }) },
    { weight: 1, arbitrary: fc.record({ kind: kinds, title: titles }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.record({ kind: kinds, command: commands, paths, access, url: urls, title: titles }, { requiredKeys: [] }) },
  )
  .filter((m) => Object.keys(m).length > 0)
  .map((m) => `{ ${Object.entries(m).map(([key, values]) => `${key}: [${(values as string[]).map(q).join(', ')}]`).join(', ')} }`);

const rule = fc.tuple(fc.constantFrom('allow', 'ask', 'deny'), fc.constantFrom('enforce', 'enforce', 'warn', 'shadow'), match);

function policyFile(rules: readonly [string, string, string][], name: string, layer: PolicyFile['layer']): PolicyFile {
  const yaml = ['version: 1', 'default: ask', 'rules:'];
  rules.forEach(([decision, enforcement, m], i) => yaml.push(`  - id: r${i}`, `    decision: ${decision}`, `    enforcement: ${enforcement}`, `    match: ${m}`));
  if (rules.length === 0) yaml.push('  []');
  const loaded = loadPolicyText(`${yaml.join('\n')}\n`, name, layer);
  if (!loaded.policy) throw new Error(JSON.stringify(loaded.diagnostics));
  return loaded.policy;
}

/**
 * Commands as the analyzer hands them out (deeply frozen: evaluate remembers those), or plain objects;
 * evaluate also remembers commands by content, so the same words come back in other directories,
 * with other homes and as dynamic arguments (`rm -rf .` in `/` is not `rm -rf .` in /w).
 */
const command: fc.Arbitrary<SimpleCommand> = fc
  .tuple(
    fc.constantFrom(...ARGV0), fc.array(fc.constantFrom(...ARGS), { maxLength: 4 }), fc.constantFrom([], ['sudo']), fc.boolean(),
    fc.constantFrom(WORKSPACE, '/', '/w/sub'), fc.constantFrom(HOME, '/root', undefined), fc.constantFrom(undefined, true),
  )
  .map(([argv0, args, wrappers, frozen, cwd, home, dynamicArguments]) => {
    const built: SimpleCommand = {
      argv: [argv0, ...args], program: argv0.slice(argv0.lastIndexOf('/') + 1), cwd, assignments: [], wrappers,
      text: [argv0, ...args].join(' '), ...(home === undefined ? {} : { home }), ...(dynamicArguments ? { dynamicArguments } : {}),
    };
    if (frozen) for (const value of [built.argv, built.assignments, built.wrappers, built]) Object.freeze(value);
    return built;
  });

const facts: fc.Arbitrary<CallFacts> = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    title: fc.constantFrom(undefined, 'Run danger', 'run tests'),
    commands: fc.array(command, { maxLength: 3 }),
    paths: fc.array(fc.record({ path: fc.constantFrom(...PATHS), access: fc.constantFrom('read', 'write', 'delete') }), { maxLength: 2 }),
    urls: fc.array(fc.constantFrom('https://docs.x.org/a', 'https://api.example.com/'), { maxLength: 1 }),
  })
  .map((f) => ({
    kind: f.kind, tool: undefined, title: f.title, agent: undefined, workspace: WORKSPACE,
    paths: f.paths.map((p): PathFact => ({ ...p, origin: 'rawInput' })), commands: f.commands, urls: f.urls,
    input: {}, shellLine: undefined, shell: undefined, unresolvable: [],
  }));

/** The reference: every rule, in order, for every item. */
function naiveMatches(policy: PolicySet, callFacts: CallFacts): string[][] {
  const rules: Rule[] = policy.files.flatMap((file) => file.rules);
  const context = { workspace: callFacts.workspace, home: HOME };
  return itemsOf(callFacts).map((item) =>
    rules.filter((r) => conditionsHold(r.match, item, callFacts, context, r.decision === 'allow')).map((r) => `${r.file}#${r.id}`));
}

describe('evaluate: the rule index is invisible', () => {
  it('every item matches exactly the rules a loop over all rules finds, in policy order', () => {
    let matched = 0;
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 25 }), fc.array(rule, { maxLength: 8 }), fc.array(facts, { minLength: 1, maxLength: 4 }), (userRules, projectRules, calls) => {
        const user = policyFile(userRules, 'user.yaml', 'user');
        const project = policyFile(projectRules, 'project.yaml', 'project');
        for (const policy of [{ files: [user] }, { files: [user, project] }, { files: [user] }]) {
          // Three rounds: a frozen command seen again is remembered, then answered from memory.
          for (let round = 0; round < 3; round++) {
            for (const call of calls) {
              const evaluation = evaluate(policy, call, { home: HOME });
              const expected = naiveMatches(policy, call);
              expect(evaluation.items.map((i) => i.matches.map((m) => `${m.file}#${m.ruleId}`))).toEqual(expected);
              expect(evaluation.items.map((i) => i.label)).toEqual(itemsOf(call).map(describeItem));
              matched += expected.flat().length;
            }
          }
        }
      }),
      { numRuns: RUNS },
    );
    expect(matched).toBeGreaterThan(RUNS * 9); // the generator makes rules that do match
  });

  it('a command remembered by its content is never confused with the same words in another directory, home or with dynamic arguments', () => {
    const user = policyFile([
      ['deny', 'enforce', '{ command: ["rm -rf /"] }'],
      ['deny', 'enforce', '{ command: ["rm -rf ~"] }'],
      ['allow', 'enforce', '{ command: ["rm -rf /w/x", "rm -rf *"] }'],
      ['ask', 'enforce', '{ command: ["foo rm -rf /"] }'],
    ], 'memo.yaml', 'user');
    const policy = { files: [user] };
    const shape = fc.record({
      argv: fc.constantFrom(['rm', '-rf', '.'], ['rm', '-rf', '..'], ['rm', '-rf', 'x'], ['rm', '-rf', '/root'], ['foo', 'rm', '-rf', '.'], ['rm', '-rf', '/\0x'], ['rm', '-rf\0/']),
      cwd: fc.constantFrom('/', '/w', '/root'),
      home: fc.constantFrom('/root', '/w', undefined),
      dynamic: fc.boolean(),
      frozen: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(shape, { minLength: 1, maxLength: 30 }), (shapes) => {
        for (const { argv, cwd, home, dynamic, frozen } of shapes) {
          const built: SimpleCommand = {
            argv: [...argv], program: argv[0]!, cwd, assignments: [], wrappers: [], text: argv.join(' '),
            ...(home === undefined ? {} : { home }), ...(dynamic ? { dynamicArguments: true } : {}),
          };
          if (frozen) for (const value of [built.argv, built]) Object.freeze(value);
          const call: CallFacts = {
            kind: 'execute', tool: undefined, title: undefined, agent: undefined, workspace: WORKSPACE, paths: [], urls: [], input: {},
            shellLine: undefined, shell: undefined, unresolvable: [], commands: [built],
          };
          // Twice: the second evaluation may answer from what the first remembered.
          for (let round = 0; round < 2; round++) {
            const evaluation = evaluate(policy, call, { home: HOME });
            expect(evaluation.items.map((i) => i.matches.map((m) => `${m.file}#${m.ruleId}`))).toEqual(naiveMatches(policy, call));
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a rebuilt PolicySet over the same files, and a changed file list, are both honoured', () => {
    const user = policyFile([['allow', 'enforce', '{ command: ["git status"] }']], 'user.yaml', 'user');
    const project = policyFile([['deny', 'enforce', '{ command: ["git"] }']], 'project.yaml', 'project');
    const call: CallFacts = {
      kind: 'execute', tool: undefined, title: undefined, agent: undefined, workspace: WORKSPACE, paths: [], urls: [], input: {},
      shellLine: 'git status', shell: undefined, unresolvable: [],
      commands: [{ argv: ['git', 'status'], program: 'git', cwd: WORKSPACE, assignments: [], wrappers: [], text: 'git status', home: HOME }],
    };
    expect(evaluate({ files: [user] }, call, { home: HOME }).decision).toBe('allow');
    expect(evaluate({ files: [user, project] }, call, { home: HOME }).decision).toBe('deny');
    expect(evaluate({ files: [user] }, call, { home: HOME }).decision).toBe('allow');
    expect(evaluate({ files: [] }, call, { home: HOME }).decision).toBe('ask');
  });

  it('strictProgram still applies to indexed allow rules (`git` does not allow ./git, does allow /usr/bin/git)', () => {
    const user = policyFile([['allow', 'enforce', '{ command: ["git status"] }']], 'user.yaml', 'user');
    const run = (argv0: string) => evaluate({ files: [user] }, {
      kind: 'execute', tool: undefined, title: undefined, agent: undefined, workspace: WORKSPACE, paths: [], urls: [], input: {},
      shellLine: undefined, shell: undefined, unresolvable: [],
      commands: [{ argv: [argv0, 'status'], program: 'git', cwd: WORKSPACE, assignments: [], wrappers: [], text: '', home: HOME }],
    }, { home: HOME }).decision;
    expect(run('git')).toBe('allow');
    expect(run('/usr/bin/git')).toBe('allow');
    expect(run('./git')).toBe('ask');
  });
});
