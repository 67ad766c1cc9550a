/**
 * The differential oracle: analyse each line (cwd /w, home /home/dev), run the resolved ones under
 * real bash or zsh in the sandbox, and compare what really ran with what the analysis reported.
 */
import { availableParallelism } from 'node:os';
import type { CommandAnalysis, ShellAnalyzer } from '../../../src/shell/index.js';
import { compare, type Mismatch } from './compare.js';
import type { Sandbox, Shell } from './sandbox.js';
import { HOME, WORKSPACE } from './seed.js';
import { parseTrace, type Observed, type TraceEvent } from './trace.js';

export interface OracleResult {
  readonly line: string;
  readonly shell: Shell;
  readonly analysis: CommandAnalysis;
  /** Undefined when the analysis called the line unresolvable (it is never allowed: nothing to check). */
  readonly observed?: Observed;
  readonly mismatches: readonly Mismatch[];
}

export const CONTEXT = { cwd: WORKSPACE, home: HOME } as const;

export async function runOracle(
  sandbox: Sandbox, analyzer: Pick<ShellAnalyzer, 'analyze'>, lines: readonly string[], shell: Shell,
): Promise<OracleResult[]> {
  const analyses = lines.map((line) => analyzer.analyze(line, CONTEXT));
  const resolved = lines.map((_, i) => i).filter((i) => analyses[i]!.unresolvable.length === 0);
  const workers = Math.max(1, Math.min(availableParallelism(), 4));
  const size = Math.ceil(resolved.length / workers);
  const chunks = Array.from({ length: workers }, (_, w) => resolved.slice(w * size, (w + 1) * size)).filter((c) => c.length > 0);
  const traces = new Map<number, TraceEvent[]>();
  await Promise.all(chunks.map(async (chunk) => {
    const out = await sandbox.run(chunk.map((i) => lines[i]!), shell);
    chunk.forEach((index, k) => traces.set(index, out[k]!));
  }));
  return lines.map((line, i) => {
    const analysis = analyses[i]!;
    const trace = traces.get(i);
    if (trace === undefined) return { line, shell, analysis, mismatches: [] };
    const observed = parseTrace(trace);
    return { line, shell, analysis, observed, mismatches: compare(analysis, observed) };
  });
}

export function describeResult(result: OracleResult): string {
  return [
    `${result.shell}: ${JSON.stringify(result.line)}`,
    ...result.mismatches.map((m) => `  not reported ${m.kind}: ${m.what}`),
    `  analysis: ${JSON.stringify({ commands: result.analysis.commands.map((c) => ({ argv: c.argv, wrappers: c.wrappers })), redirections: result.analysis.redirections })}`,
  ].join('\n');
}
