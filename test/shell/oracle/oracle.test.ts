/**
 * Real bash (and zsh) is the oracle: generated and corpus lines run in a bubblewrap sandbox under
 * strace; for every line the analysis calls resolved, every program really executed and every file
 * really written (or read, under the workspace and home) must be among what the analysis reported.
 * Failures print the line and the generator seed (ORACLE_SEED overrides it, ORACLE_LINES the count).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandAnalysis, ShellAnalyzer } from '../../../src/shell/index.js';
import { sharedAnalyzer } from '../helpers.js';
import { adversarialCases, benignCases } from './corpora.js';
import { judge, gapSummary, type Gap } from './gaps.js';
import { GENERATED_LINES, GENERATOR_SEED, generateLines } from './generate.js';
import { describeResult, runOracle, type OracleResult } from './oracle.js';
import { createSandbox, sandboxProblem, type Sandbox, type Shell } from './sandbox.js';

let sandbox: Sandbox;
let analyzer: ShellAnalyzer;

beforeAll(async () => {
  const problem = sandboxProblem();
  if (problem) throw new Error(`the oracle needs its sandbox: ${problem}`);
  sandbox = createSandbox();
  analyzer = await sharedAnalyzer();
});
afterAll(() => {
  if (sandbox) console.log(`oracle sandboxes used ${sandbox.cpuSeconds().toFixed(1)} s of CPU (strace and every traced process)`);
  sandbox?.close();
});

const adversarial = adversarialCases();
const classOfLine = new Map<string, Gap['class']>(adversarial.map((c) => [c.line, c.class]));
const classOf = (line: string): Gap['class'] => classOfLine.get(line) ?? (ZSH_LINES.includes(line) ? 7 : 'generated');

/** Zsh-only spellings (codex runs `/bin/zsh -lc` on some systems). */
const ZSH_LINES = [
  '=rm -rf x', 'noglob rm -rf x', 'repeat 2 rm x', 'echo x >>(cat)', 'rm =(echo x)', 'echo ${(e)x}', 'print -r -- x > out.txt',
  'echo x > out.txt > sub/out.txt', 'ls **/*.ts', 'setopt extendedglob; echo x > .en[v]', 'builtin echo x > hooks/pre-commit',
  'nocorrect git status', 'echo $(< .env)', 'for f (a b) rm $f', 'x=(a b); rm $x', 'echo ${~x}', 'time git status',
];

function verdict(check: string, results: readonly OracleResult[], context: string, generated = false): void {
  const failures = new Map(results.filter((r) => r.mismatches.length > 0).map((r) => [r.line, describeResult(r)]));
  // A listed line the analysis now calls unresolvable passes too (it is never allowed).
  const { unlisted, fixed, tolerated } = judge(check, results.map((r) => r.line), failures, classOf, undefined, generated);
  const run = results.filter((r) => r.observed).length;
  console.log(`${check} (${context}): ${results.length} lines, ${run} resolved and run, ${results.length - run} unresolvable; ` +
    `${failures.size} not matching real ${shellOf(check)} (${tolerated.length} known gaps, ${unlisted.length} new), ${fixed.length} known gaps fixed`);
  if (tolerated.length) console.log(`known gaps still failing (${check}):\n${tolerated.slice(0, 15).join('\n')}${tolerated.length > 15 ? `\n… and ${tolerated.length - 15} more` : ''}`);
  expect(unlisted, `${check}: lines the analysis calls resolved but real ${shellOf(check)} ran more (${context})`).toEqual([]);
  expect(fixed, `${check}: known gaps that pass now`).toEqual([]);
}

const shellOf = (check: string) => (check.includes('zsh') ? 'zsh' : 'bash');

async function oracle(lines: readonly string[], shell: Shell) {
  return runOracle(sandbox, analyzer, [...new Set(lines)], shell);
}

describe('real bash is the oracle', () => {
  it('catches a deliberately wrong analysis (a command, a wrapped command, a write, a read, a symlinked path left out)', async () => {
    const wrong = (analysis: CommandAnalysis): CommandAnalysis => ({
      commands: analysis.commands.slice(0, -1),
      redirections: analysis.redirections.slice(1),
      unresolvable: analysis.unresolvable,
    });
    const lying: Pick<ShellAnalyzer, 'analyze'> = { analyze: (line, context) => wrong(analyzer.analyze(line, context)) };
    const lines = ['ls && rm -rf x', 'timeout 5 git push', 'echo a > out.txt; echo b > sub/out.txt', 'cat < package.json < files.txt', 'true; echo x > src/link/k'];
    const results = await runOracle(sandbox, lying, lines, 'bash');
    for (const result of results) {
      expect(result.observed, result.line).toBeDefined();
      expect(result.mismatches.length, describeResult(result)).toBeGreaterThan(0);
    }
    expect(results.map((r) => r.mismatches.map((m) => `${m.kind} ${m.what}`))).toEqual([
      ['exec ["rm","-rf","x"]'],
      ['exec ["timeout","5","git","push"]', 'exec ["git","push"]'],
      ['exec ["echo","b"]', 'write /w/out.txt'],
      ['exec ["cat"]', 'read /w/package.json'],
      ['exec ["echo","x"]', 'write /home/dev/.ssh/k'],
    ]);
    // A path the analysis resolves lexically through a link is not where the kernel writes.
    const lexical: Pick<ShellAnalyzer, 'analyze'> = {
      analyze: (line, context) => {
        const a = analyzer.analyze(line, context);
        return { ...a, redirections: a.redirections.map(({ kernelPath: _kernel, ...r }) => ({ ...r, path: r.path.replace('/link/..', '') })) };
      },
    };
    const [linked] = await runOracle(sandbox, lexical, ['echo x > src/link/../y'], 'bash');
    expect(linked!.mismatches).toEqual([{ kind: 'write', what: '/home/dev/y' }]);
  }, 60_000);

  it('the analysis of the unchanged analyzer matches real bash on the same lines', async () => {
    const results = await oracle(['ls && rm -rf x', 'timeout 5 git push', 'echo a > out.txt; echo b > sub/out.txt', 'cat < package.json < files.txt', 'xargs rm < files.txt'], 'bash');
    expect(results.flatMap((r) => r.mismatches)).toEqual([]);
  }, 60_000);

  it('corpus lines (adversarial and benign) under bash', async () => {
    const lines = [...adversarial.map((c) => c.line), ...benignCases().map((c) => c.line)];
    verdict('oracle-bash', await oracle(lines, 'bash'), 'corpora');
  }, 120_000);

  it(`${GENERATED_LINES} generated lines under bash (seed ${GENERATOR_SEED})`, async () => {
    verdict('oracle-bash-generated', await oracle(generateLines(), 'bash'), `generated, seed ${GENERATOR_SEED}: ORACLE_SEED=${GENERATOR_SEED} reproduces`, true);
  }, 180_000);

  it('adversarial, zsh-only and generated lines under zsh', async () => {
    const generated = new Set(generateLines(Math.ceil(GENERATED_LINES / 8), GENERATOR_SEED + 1));
    const results = await oracle([...adversarial.map((c) => c.line), ...ZSH_LINES, ...generated], 'zsh');
    verdict('oracle-zsh', results.filter((r) => !generated.has(r.line) || classOfLine.has(r.line) || ZSH_LINES.includes(r.line)), 'adversarial corpus and zsh-only lines');
    verdict('oracle-zsh-generated', results.filter((r) => generated.has(r.line) && !classOfLine.has(r.line) && !ZSH_LINES.includes(r.line)),
      `generated, seed ${GENERATOR_SEED + 1}: ORACLE_SEED=${GENERATOR_SEED} reproduces`, true);
    console.log(`known gaps listed: ${gapSummary()}`);
  }, 120_000);
});
