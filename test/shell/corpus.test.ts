/**
 * The adversarial corpus (corpus.yaml): every line evaluated with a tiny evaluator that follows
 * DESIGN.md §4.4 (the real policy engine lives elsewhere). Fails on any false allow, and on any
 * line whose label does not hold.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  commandMatches,
  parseCommandPattern,
  type CommandAnalysis,
  type CommandPattern,
  type Redirection,
  type SimpleCommand,
} from '../../src/shell/index.js';
import { sharedAnalyzer } from './helpers.js';

type Label = 'allow' | 'not-allow' | 'deny';
type Decision = 'allow' | 'ask' | 'deny';

interface CorpusFile {
  workspace: string;
  home: string;
  policy: { allow: string[]; deny: string[]; deny_writes: string[] };
  cases: Record<Label, string[]>;
}

const corpus = parse(readFileSync(new URL('./corpus.yaml', import.meta.url), 'utf8')) as CorpusFile;
const LONG_LINE = `echo ${'x'.repeat(10_001)}`;

function compile(patterns: readonly string[]): CommandPattern[] {
  return patterns.map((text) => {
    const parsed = parseCommandPattern(text);
    if ('error' in parsed) throw new Error(`bad corpus pattern ${text}: ${parsed.error}`);
    return parsed;
  });
}

const allowPatterns = compile(corpus.policy.allow);
const denyPatterns = compile(corpus.policy.deny);
const denyWritePrefixes = corpus.policy.deny_writes.map((prefix) => prefix.replace(/^~(?=\/)/, corpus.home));

function commandDecision(command: SimpleCommand): Decision {
  if (denyPatterns.some((pattern) => commandMatches(pattern, command))) return 'deny';
  if (allowPatterns.some((pattern) => commandMatches(pattern, command, { strictProgram: true }))) return 'allow';
  return 'ask';
}

function pathDecision(redirection: Redirection): Decision {
  const { path, access } = redirection;
  if (access === 'write' && denyWritePrefixes.some((prefix) => path === prefix || path.startsWith(prefix))) return 'deny';
  return path === corpus.workspace || path.startsWith(`${corpus.workspace}/`) ? 'allow' : 'ask';
}

function evaluate(analysis: CommandAnalysis): Decision {
  const items = [...analysis.commands.map(commandDecision), ...analysis.redirections.map(pathDecision)];
  if (items.includes('deny')) return 'deny';
  if (items.length > 0 && items.every((item) => item === 'allow') && analysis.unresolvable.length === 0) return 'allow';
  return 'ask';
}

const cases = (Object.entries(corpus.cases) as [Label, unknown[]][]).flatMap(([label, lines]) =>
  lines.map((line) => {
    if (typeof line !== 'string') throw new Error(`corpus entry under ${label} is not a string (quote it): ${JSON.stringify(line)}`);
    return { label, line: line === 'LONG_LINE_MARKER' ? LONG_LINE : line };
  }),
);

function holds(label: Label, decision: Decision): boolean {
  return label === 'allow' ? decision === 'allow' : label === 'deny' ? decision === 'deny' : decision !== 'allow';
}

describe('adversarial shell corpus', () => {
  it('has at least 220 lines', () => {
    expect(cases.length).toBeGreaterThanOrEqual(220);
  });

  it('never allows a line that must not be allowed, and every label holds', async () => {
    const analyzer = await sharedAnalyzer();
    const context = { cwd: corpus.workspace, home: corpus.home };
    const results = cases.map(({ label, line }) => {
      const analysis = analyzer.analyze(line, context);
      return { label, line, decision: evaluate(analysis), analysis };
    });
    const count = (decision: Decision) => results.filter((result) => result.decision === decision).length;
    const falseAllows = results.filter((result) => result.label !== 'allow' && result.decision === 'allow');
    const falseDenies = results.filter((result) => result.label !== 'deny' && result.decision === 'deny');
    const mismatches = results.filter((result) => !holds(result.label, result.decision));
    console.log(
      `shell corpus: ${results.length} lines — allowed ${count('allow')}, not allowed ${count('ask') + count('deny')} ` +
        `(asked ${count('ask')}, denied ${count('deny')}); false allows ${falseAllows.length}, ` +
        `false denies ${falseDenies.length}, label mismatches ${mismatches.length}`,
    );
    for (const { label, line, decision, analysis } of mismatches) {
      console.log(`  ${label} → ${decision}: ${JSON.stringify(line.slice(0, 120))}`, JSON.stringify({
        commands: analysis.commands.map((command) => command.argv),
        redirections: analysis.redirections,
        unresolvable: analysis.unresolvable,
      }));
    }
    expect(falseAllows.map((result) => result.line)).toEqual([]);
    expect(mismatches.map((result) => `${result.label} → ${result.decision}: ${result.line.slice(0, 120)}`)).toEqual([]);
  });
});
