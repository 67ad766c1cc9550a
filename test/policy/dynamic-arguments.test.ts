/**
 * An argument known only at run time (`git push origin $b`) may be anything: it never matches an
 * allow rule's command pattern; deny and ask rules match as before.
 */
import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/core/facts.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { policyFrom, shell } from '../helpers/harness.js';

const POLICY = `
version: 1
default: ask
rules:
  - id: pushes
    decision: allow
    match: { command: ["git push origin", "echo", "rm -rf build"] }
  - id: no-force
    decision: deny
    match: { command: ["git push --force", "rm -rf /"] }
  - id: ask-curl
    decision: ask
    match: { command: ["curl"] }
`;

async function decide(line: string) {
  const analyzer = await shell();
  const facts: CallFacts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command: line } }, { workspace: '/w', home: '/home/u', agent: undefined, shell: analyzer, canonicalize: lexicalOnly, fileExists: () => false, listTree: () => [] });
  return evaluate(await policyFrom(POLICY), facts, { home: '/home/u' });
}

describe('arguments from variables never match an allow rule', () => {
  it.each([
    // A same-line constant is followed (the walker): the push is seen as the force push it is.
    ['b=+main; git push origin $b', 'deny'],
    ['b=$(git rev-parse --abbrev-ref HEAD); git push origin $b', 'ask'],
    ['git push origin "$BRANCH"', 'ask'],
    ['echo $SECRET', 'ask'],
    ['rm -rf build$X', 'ask'],
    ['git push origin main', 'allow'],
    ['echo hello', 'allow'],
    ['echo $HOME', 'allow'],
  ])('%s → %s', async (line, decision) => {
    expect((await decide(line)).decision).toBe(decision);
  });

  it('deny rules still match a command with dynamic arguments', async () => {
    expect((await decide('git push --force origin $b')).decision).toBe('deny');
    expect((await decide('rm -rf / $X')).decision).toBe('deny');
  });

  it('ask rules still match a command with dynamic arguments', async () => {
    const evaluation = await decide('curl $URL');
    expect(evaluation.decision).toBe('ask');
    expect(evaluation.source).toMatchObject({ type: 'rule', ruleId: 'ask-curl' });
  });
});
