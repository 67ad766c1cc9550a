/**
 * The shell analyzer: one line in, every simple command it would run, every file it redirects to,
 * and the reasons it cannot be resolved statically. Never throws. Results that are cached (and so
 * shared) are deeply frozen; one-off results are not: freezing them all would be a visible share
 * of the analysis (bench/RESULTS.md, "Freezing only what the cache keeps").
 */
import { AnalysisCollector, forgetCwd, newScope } from './collector.js';
import { LruCache } from './lru-cache.js';
import { loadBashParser, type BashParser } from './parser.js';
import { parsePlainLine } from './plain-line.js';
import { screenLine, MAX_LINE_LENGTH } from './screen.js';
import { StatementWalker } from './statement-walker.js';
import type { CommandAnalysis, ShellAnalyzer, ShellContext } from './types.js';

export interface ShellAnalyzerOptions {
  /** Analyses remembered (same line, cwd and home); 0 disables the cache. Default 1000. */
  readonly cacheSize?: number;
  /**
   * Build the syntax tree of plain lines (`npm test && git status | head`) without tree-sitter
   * (plain-line.ts); the analysis is the same, only faster. Default true; false is for tests.
   */
  readonly fastPath?: boolean;
}

export async function createShellAnalyzer(options: ShellAnalyzerOptions = {}): Promise<ShellAnalyzer> {
  const bashParser = await loadBashParser();
  /** Set when the analysis in progress needed tree-sitter (the line or code it runs was not plain). */
  let parsedFully = false;
  const fullParser: BashParser = {
    parse(source) {
      parsedFully = true;
      return bashParser.parse(source);
    },
  };
  const parser: BashParser = options.fastPath === false ? fullParser : { parse: (source) => parsePlainLine(source) ?? fullParser.parse(source) };
  const cacheSize = options.cacheSize ?? 1000;
  const cache = cacheSize > 0 ? new LruCache<string, CommandAnalysis>(cacheSize) : undefined;
  /**
   * Plain lines are analysed without tree-sitter for about what keeping their analysis costs
   * (allocation, and garbage collection of a large cache of one-off lines; bench/RESULTS.md, "The
   * plain-line fast path"): they are cached only when they come back (within the next `cacheSize` such lines). Keys seen once are
   * remembered here, a set no larger than the cache.
   */
  const seenOnce = new Set<string>();
  /**
   * The entry of the cache used last (it is the most recent one): the same line again — one call
   * analysed twice, or an agent repeating itself — is answered without building and hashing a key.
   */
  let last: { readonly line: string; readonly cwd: string; readonly home: string; readonly cwdUnknown: boolean; readonly analysis: CommandAnalysis } | undefined;
  return {
    analyze(line, context) {
      try {
        const cwdUnknown = context.cwdUnknown === true;
        if (last !== undefined && last.line === line && last.cwd === context.cwd && last.home === context.home && last.cwdUnknown === cwdUnknown) {
          return last.analysis;
        }
        const key = cache && `${cwdUnknown ? '?' : ''}${context.cwd}\0${context.home}\0${line}`;
        const cached = key === undefined ? undefined : cache?.get(key);
        if (cached) {
          last = { line, cwd: context.cwd, home: context.home, cwdUnknown, analysis: cached };
          return cached;
        }
        last = undefined;
        parsedFully = false;
        const analysis = analyzeLine(parser, line, context);
        if (key !== undefined && cache) {
          if (parsedFully || seenOnce.has(key)) {
            seenOnce.delete(key);
            // Kept, so shared by later callers: frozen. A one-off result is its caller's alone.
            cache.set(key, deepFreeze(analysis));
            last = { line, cwd: context.cwd, home: context.home, cwdUnknown, analysis };
          } else {
            if (seenOnce.size >= cacheSize) seenOnce.clear();
            seenOnce.add(key);
          }
        }
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
  const scope = newScope(context.cwd);
  if (context.cwdUnknown === true) forgetCwd(scope);
  try {
    new StatementWalker(collector, parser).analyzeCode(text, scope, { wrappers: [], stdin: { kind: 'inherited' } });
  } catch (error) {
    // Fail closed: whatever was found so far stays (so deny rules still see it), nothing is allowed.
    collector.unresolvable(`internal error while analysing: ${describe(error)}`);
    return collector.result();
  }
  return collector.result(scope.cwd ?? null);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isAbsolute(path: unknown): path is string {
  return typeof path === 'string' && path.startsWith('/');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Only objects need a visit (argv is mostly strings): this runs on every analysis.
    // Index loops: no iterator allocated per object.
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (typeof child === 'object' && child !== null) deepFreeze(child);
      }
    } else {
      const keys = Object.keys(value);
      for (let i = 0; i < keys.length; i++) {
        const child = (value as Record<string, unknown>)[keys[i]!];
        if (typeof child === 'object' && child !== null) deepFreeze(child);
      }
    }
  }
  return value;
}
