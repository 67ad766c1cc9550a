/**
 * The rule index offers deny and ask rules of programs named by looked-through words: for random
 * commands with program names among their arguments, evaluate matches exactly the rules a loop
 * over all rules finds (conditionsHold looks through for non-allow rules too).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/core/facts.js';
import { conditionsHold, evaluate } from '../../src/policy/evaluate.js';
import { itemsOf } from '../../src/policy/items.js';
import { loadPolicyText } from '../../src/policy/load.js';
import type { SimpleCommand } from '../../src/shell/types.js';

const WORDS = ['rm', '/bin/rm', '-rf', '/', 'git', 'push', '--force', 'echo', 'foo', 'npm', 'exec', 'x', 'curl', 'docker', 'sudo'];
const PATTERNS = ['rm -rf /', 'rm', 'git push --force', 'curl', 'foo', 'echo', 'npm exec', 'r*', '*'];

const rule = fc.tuple(fc.constantFrom('allow', 'ask', 'deny'), fc.uniqueArray(fc.constantFrom(...PATTERNS), { minLength: 1, maxLength: 2 }));
const command = fc.tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }), fc.boolean()).map(([argv, frozen]) => {
  const built: SimpleCommand = { argv, program: argv[0]!.slice(argv[0]!.lastIndexOf('/') + 1), cwd: '/w', assignments: [], wrappers: [], text: argv.join(' '), home: '/h' };
  if (frozen) for (const value of [built.argv, built.assignments, built.wrappers, built]) Object.freeze(value);
  return built;
});

describe('look-through and the rule index', () => {
  it('evaluate matches what a loop over all rules matches', () => {
    fc.assert(fc.property(fc.array(rule, { minLength: 1, maxLength: 12 }), fc.array(command, { minLength: 1, maxLength: 3 }), (rules, commands) => {
      const yaml = ['version: 1', 'default: ask', 'rules:', ...rules.flatMap(([decision, patterns], i) => [`  - id: r${i}`, `    decision: ${decision}`, `    match: { command: [${patterns.map((p) => JSON.stringify(p)).join(', ')}] }`])];
      const loaded = loadPolicyText(`${yaml.join('\n')}\n`, 'p.yaml', 'user');
      if (!loaded.policy) throw new Error(JSON.stringify(loaded.diagnostics));
      const policy = { files: [loaded.policy] };
      const facts: CallFacts = {
        kind: 'execute', tool: undefined, title: undefined, agent: undefined, workspace: '/w', paths: [], commands, urls: [],
        input: {}, shellLine: undefined, shell: undefined, unresolvable: [],
      };
      for (let round = 0; round < 2; round++) {
        const evaluation = evaluate(policy, facts, { home: '/h' });
        const expected = itemsOf(facts).map((item) => loaded.policy!.rules
          .filter((r) => conditionsHold(r.match, item, facts, { workspace: '/w', home: '/h' }, r.decision === 'allow')).map((r) => r.id));
        expect(evaluation.items.map((i) => i.matches.map((m) => m.ruleId))).toEqual(expected);
      }
    }), { numRuns: 200 });
  });
});
