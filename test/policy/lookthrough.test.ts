/**
 * Deny-side look-through: an argv of a program not known to treat its arguments as data that
 * contains a denied command at a word boundary counts as that command for deny and ask rules,
 * never for allow rules. Programs whose arguments are data keep their decisions.
 */
import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/core/facts.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { commandMatches, parseCommandPattern, type CommandPattern } from '../../src/shell/command-pattern.js';
import type { SimpleCommand } from '../../src/shell/types.js';
import { policyFrom, shell } from '../helpers/harness.js';

const POLICY = `
version: 1
default: ask
rules:
  - id: reads
    decision: allow
    match: { command: ["echo", "grep", "git status", "git commit", "foo", "npm run", "rm -rf build"] }
  - id: destructive
    decision: deny
    match: { command: ["rm -rf /", "git push --force", "shutdown"] }
  - id: careful
    decision: ask
    match: { command: ["curl"] }
  # The files the commands read (grep's arguments) are beside the point here.
  - id: any-read
    decision: allow
    match: { access: read, paths: ["/**"] }
`;

async function decide(line: string) {
  const analyzer = await shell();
  const facts: CallFacts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command: line } }, { workspace: '/w', home: '/home/u', agent: undefined, shell: analyzer, canonicalize: lexicalOnly, fileExists: () => false, listTree: () => [] });
  return evaluate(await policyFrom(POLICY), facts, { home: '/home/u' });
}

describe('look-through on the deny side', () => {
  it.each([
    ['foo --bar rm -rf /', 'deny'],
    ['foo rm -rf /', 'deny'],
    ['foo x /bin/rm -fr /', 'deny'],
    ['foo git push -f origin main', 'deny'],
    ['npm run x -- shutdown', 'deny'],
    ['npm exec rm -rf /', 'deny'],
    ['foo --retry curl https://x', 'ask'],
    ['unknownwrap --as root rm --recursive --force /', 'deny'],
  ])('%s → %s', async (line, decision) => {
    expect((await decide(line)).decision).toBe(decision);
  });

  it.each([
    ['echo rm -rf /', 'allow'],
    ["echo 'rm -rf /'", 'allow'],
    ['grep -r "rm -rf /" .', 'allow'],
    ['grep -r rm -rf /', 'allow'],
    ['git commit -m "rm -rf /"', 'allow'],
    ['git status rm -rf /', 'allow'],
    ['foo rm -rf build', 'allow'],
    ['npm run shutdown-check', 'allow'],
    ['foo https://example.com/shutdown', 'allow'],
  ])('data arguments keep their decision: %s → %s', async (line, decision) => {
    expect((await decide(line)).decision).toBe(decision);
  });

  it('never makes an allow rule match', async () => {
    // `rm -rf build` is allowed by name, but `bar rm -rf build` is bar's business: the default decides.
    const evaluation = await decide('bar rm -rf build');
    expect(evaluation.decision).toBe('ask');
    expect(evaluation.source).toEqual({ type: 'default' });
  });

  it('the first argument of a program with subcommands is not a command (`docker rm`)', async () => {
    const pattern = parseCommandPattern('rm') as CommandPattern;
    const command = (argv: string[]): SimpleCommand => ({ argv, program: argv[0]!, cwd: '/w', assignments: [], wrappers: [], text: argv.join(' ') });
    expect(commandMatches(pattern, command(['docker', 'rm', 'x']), { lookThrough: true })).toBe(false);
    expect(commandMatches(pattern, command(['docker', 'exec', 'c', 'rm', 'x']), { lookThrough: true })).toBe(true);
    expect(commandMatches(pattern, command(['docker', 'exec', 'c', 'rm', 'x']), { lookThrough: true, strictProgram: true })).toBe(false);
    expect(commandMatches(pattern, command(['docker', 'exec', 'c', 'rm', 'x']))).toBe(false);
  });

  it('git subcommands that run commands are looked through', async () => {
    expect((await decide('git bisect run rm -rf /')).decision).toBe('deny');
    expect((await decide('git log --grep shutdown')).decision).not.toBe('deny');
  });
});
