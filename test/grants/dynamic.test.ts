/**
 * A command with an argument known only at run time is never covered by an allow grant, and no
 * grant is offered for it (the human never saw the word that will run).
 */
import { describe, expect, it } from 'vitest';
import { escalationOptions } from '../../src/broker/escalation-options.js';
import { subjectFor } from '../../src/broker/grant-items.js';
import type { CallFacts } from '../../src/core/facts.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { grantCoversItem, subjectOfItem, type Grant, type GrantItem } from '../../src/grants/grant.js';
import { evaluate } from '../../src/policy/evaluate.js';
import type { SimpleCommand } from '../../src/shell/types.js';
import { CLAUDE_OPTIONS, policyFrom, shell } from '../helpers/harness.js';

const PROJECT = '/w';
const NOW = new Date('2025-06-01T12:00:00Z');

function grant(decision: 'allow' | 'deny', argv: string[], prefix: boolean): Grant {
  return {
    id: 'g', decision, subject: { type: 'command', argv, prefix }, scope: { type: 'project', dir: PROJECT },
    createdAt: '2025-06-01T00:00:00.000Z', source: 'client', label: 'test',
  };
}

function item(argv: string[], dynamicArguments: boolean): GrantItem {
  const command: SimpleCommand = { argv, program: argv[0]!, cwd: PROJECT, assignments: [], wrappers: [], text: argv.join(' '), dynamicArguments };
  return { type: 'command', command };
}

const ctx = { workspace: PROJECT, now: NOW };

describe('grants and dynamic arguments', () => {
  it('an allow grant never covers a command with a run-time argument', () => {
    expect(grantCoversItem(grant('allow', ['git', 'push', 'origin', '$b'], false), item(['git', 'push', 'origin', '$b'], true), ctx)).toBe(false);
    expect(grantCoversItem(grant('allow', ['git', 'push'], true), item(['git', 'push', 'origin', '$b'], true), ctx)).toBe(false);
    expect(grantCoversItem(grant('allow', ['git', 'push'], true), item(['git', 'push', 'origin', 'main'], false), ctx)).toBe(true);
  });

  it('a deny grant still covers it', () => {
    expect(grantCoversItem(grant('deny', ['git', 'push'], true), item(['git', 'push', 'origin', '$b'], true), ctx)).toBe(true);
  });

  it('has no subject, so nothing can be remembered for it', () => {
    expect(subjectOfItem(item(['git', 'push', 'origin', '$b'], true))).toBeUndefined();
    expect(subjectOfItem(item(['git', 'push', 'origin', 'main'], false))).toEqual({ type: 'command', argv: ['git', 'push', 'origin', 'main'], prefix: false });
  });

  it('escalation offers no "always" option for a line with a variable argument', async () => {
    const policy = await policyFrom('version: 1\ndefault: ask\nrules: []\n');
    const analyzer = await shell();
    const offered = (line: string) => {
      const facts: CallFacts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command: line } }, { workspace: PROJECT, home: '/home/u', agent: undefined, shell: analyzer, canonicalize: lexicalOnly, fileExists: () => false });
      const evaluation = evaluate(policy, facts, { home: '/home/u' });
      expect(evaluation.decision).toBe('ask');
      const [first] = evaluation.items;
      expect(subjectFor(first!.item, facts) === undefined).toBe(line.includes('$'));
      const escalation = escalationOptions({ agentOptions: CLAUDE_OPTIONS as never, facts, evaluation, keepAgentAlwaysOptions: false, scope: { type: 'project', dir: PROJECT }, sequence: 1 });
      return escalation.options.filter((o) => o.kind === 'allow_always').length;
    };
    expect(offered('git push origin "$BRANCH"')).toBe(0);
    expect(offered('git push origin main')).toBe(1);
  });
});

describe('grants and the runners that change who or where', () => {
  it.each(['ssh', 'docker', 'kubectl', 'setpriv', 'unshare', 'nsenter', 'sg', 'systemd-run'])('an allow grant for `rm x` does not cover it under %s', (wrapper) => {
    const covered = grantCoversItem(grant('allow', ['rm', 'x'], false), { type: 'command', command: { argv: ['rm', 'x'], program: 'rm', cwd: PROJECT, assignments: [], wrappers: [wrapper], text: 'rm x' } }, ctx);
    expect(covered).toBe(false);
  });
});
