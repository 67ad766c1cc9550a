/**
 * The shell analyzer: one line in, every simple command it would run, every file it redirects to,
 * and the reasons it cannot be resolved statically. Never throws; results are frozen and cached.
 */
import { AnalysisCollector, newScope } from './collector.js';
import { LruCache } from './lru-cache.js';
import { loadBashParser, type BashParser } from './parser.js';
import { screenLine, MAX_LINE_LENGTH } from './screen.js';
import { StatementWalker } from './statement-walker.js';
import type { CommandAnalysis, ShellAnalyzer, ShellContext } from './types.js';

export interface ShellAnalyzerOptions {
  /** Analyses remembered (same line, cwd and home); 0 disables the cache. Default 1000. */
  readonly cacheSize?: number;
}

export async function createShellAnalyzer(options: ShellAnalyzerOptions = {}): Promise<ShellAnalyzer> {
  const parser = await loadBashParser();
  const cacheSize = options.cacheSize ?? 1000;
  const cache = cacheSize > 0 ? new LruCache<string, CommandAnalysis>(cacheSize) : undefined;
  return {
    analyze(line, context) {
      try {
        const key = cache && `${context.cwd}\0${context.home}\0${line}`;
        const cached = key === undefined ? undefined : cache?.get(key);
        if (cached) return cached;
        const analysis = deepFreeze(analyzeLine(parser, line, context));
        if (key !== undefined) cache?.set(key, analysis);
        return analysis;
      } catch (error) {
        // Only reachable with inputs outside the types (e.g. no context): still an answer, never allowed.
        return deepFreeze({ commands: [], redirections: [], unresolvable: [`cannot analyse: ${describe(error)}`] });
      }
    },
  };
}

function analyzeLine(parser: BashParser, line: string, context: ShellContext): CommandAnalysis {
  const text = typeof line === 'string' ? line : '';
  const collector = new AnalysisCollector(context, text);
  for (const reason of screenLine(text)) collector.unresolvable(reason);
  if (text.length > MAX_LINE_LENGTH) return collector.result();
  if (!isAbsolute(context.cwd) || !isAbsolute(context.home)) {
    collector.unresolvable('the context cwd and home must be absolute paths');
    return collector.result();
  }
  try {
    new StatementWalker(collector, parser).analyzeScript(text, newScope(context.cwd), { wrappers: [], stdin: { kind: 'inherited' } });
  } catch (error) {
    // Fail closed: whatever was found so far stays (so deny rules still see it), nothing is allowed.
    collector.unresolvable(`internal error while analysing: ${describe(error)}`);
  }
  return collector.result();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isAbsolute(path: unknown): path is string {
  return typeof path === 'string' && path.startsWith('/');
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
