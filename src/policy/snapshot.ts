import { ACCESSES, TOOL_KINDS } from '../core/facts.js';
import { DECISIONS } from '../core/decision.js';
import type { SourceLocation } from '../core/errors.js';
import { parseCommandPattern, type CommandPattern } from '../shell/command-pattern.js';
import { compilePathMatcher, compileTextMatcher, compileUrlMatcher } from './patterns.js';
import type { ExampleFacts, PathMatcher, PolicyFile, Rule, RuleConditions, TextMatcher } from './types.js';

/**
 * A loaded policy chain (what policy/extends.ts `loadPolicyChain` returns) as plain data, and back:
 * start-up keeps it beside a known-good policy's text so that a later start loads that exact text
 * without the YAML parser (src/startup/policy-snapshots.ts). Everything is kept as loaded except
 * the compiled matchers, which are kept as their sources and compiled again by the same functions
 * the loader calls. `snapshotOf` gives a snapshot only when restoring it gives back the same
 * structure (`sameStructure`); `restoreSnapshot` checks every value and gives undefined for
 * anything it does not recognise, which only means parsing again.
 */

/** Plain data: what JSON carries. */
export type Snapshot = readonly unknown[];

export function snapshotOf(files: readonly PolicyFile[]): Snapshot | undefined {
  const data = files.map((f) => ({ ...f, rules: f.rules.map((r) => ({ ...r, match: conditionsData(r.match) })) }));
  let restored: PolicyFile[] | undefined;
  try {
    restored = restoreSnapshot(JSON.parse(JSON.stringify(data)));
  } catch {
    return undefined; // a value JSON cannot carry (a BigInt)
  }
  // Anything JSON does not carry exactly (an example input holding Infinity, say) shows here.
  return restored !== undefined && sameStructure(restored, files) ? data : undefined;
}

export function restoreSnapshot(data: unknown): PolicyFile[] | undefined {
  try {
    return list(data).map(restoreFile);
  } catch {
    return undefined;
  }
}

function conditionsData(m: RuleConditions): unknown {
  const sources = (matchers: readonly { source: string }[] | undefined) => matchers?.map((x) => x.source);
  return {
    kind: m.kind, access: m.access, tool: sources(m.tool), title: sources(m.title), agent: sources(m.agent), url: sources(m.url),
    paths: sources(m.paths), command: sources(m.command),
    input: m.input?.map((i) => ({ field: i.field, fieldSource: i.fieldSource, source: i.matcher.source })),
  };
}

class Unrecognised extends Error {}

type Data = Record<string, unknown>;

function record(value: unknown): Data {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Unrecognised();
  return value as Data;
}
function list(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new Unrecognised();
  return value;
}
function text(value: unknown): string {
  if (typeof value !== 'string') throw new Unrecognised();
  return value;
}
function bool(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new Unrecognised();
  return value;
}
function texts(value: unknown): string[] {
  return list(value).map(text);
}
function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T {
  if (!(allowed as readonly unknown[]).includes(value)) throw new Unrecognised();
  return value as T;
}
function compiled<T extends object>(result: T | { error: string; hint?: string }): T {
  if ('error' in result) throw new Unrecognised();
  return result;
}
function location(value: unknown): SourceLocation {
  const v = record(value);
  if (!Number.isInteger(v.line) || !Number.isInteger(v.column)) throw new Unrecognised();
  return { file: text(v.file), line: v.line as number, column: v.column as number };
}

// The objects are built with their keys in the loader's order (policy/load.ts and its readers), so
// that they have the same shape as a fresh load's.

function restoreFile(value: unknown): PolicyFile {
  const v = record(value);
  const ttl = v.grantTtlMs;
  if (ttl !== undefined && !(typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl > 0)) throw new Unrecognised();
  const modes = v.modes === undefined ? undefined : record(v.modes);
  return {
    file: text(v.file), layer: oneOf(v.layer, ['managed', 'user', 'project'] as const), default: oneOf(v.default, DECISIONS),
    nonInteractive: oneOf(v.nonInteractive, ['deny', 'cancel'] as const), keepAgentAlwaysOptions: bool(v.keepAgentAlwaysOptions),
    grantScope: oneOf(v.grantScope, ['project', 'global'] as const),
    ...(ttl !== undefined ? { grantTtlMs: ttl } : {}),
    ...(modes ? { modes: { deny: texts(modes.deny), prefer: texts(modes.prefer) } } : {}),
    ...(v.unprompted !== undefined ? { unprompted: oneOf(v.unprompted, ['warn', 'stop'] as const) } : {}),
    rules: list(v.rules).map(restoreRule),
  };
}

function restoreRule(value: unknown): Rule {
  const v = record(value);
  const examples = record(v.examples);
  return {
    id: text(v.id), decision: oneOf(v.decision, DECISIONS), reason: v.reason === undefined ? undefined : text(v.reason),
    enforcement: oneOf(v.enforcement, ['enforce', 'warn', 'shadow'] as const), match: restoreConditions(v.match),
    examples: { match: list(examples.match).map(restoreExample), notMatch: list(examples.notMatch).map(restoreExample) },
    location: location(v.location), layer: oneOf(v.layer, ['managed', 'user', 'project'] as const), file: text(v.file),
  };
}

function restoreConditions(value: unknown): RuleConditions {
  const v = record(value);
  const out: { -readonly [K in keyof RuleConditions]: RuleConditions[K] } = {};
  if (v.kind !== undefined) out.kind = list(v.kind).map((k) => oneOf(k, TOOL_KINDS));
  if (v.access !== undefined) out.access = list(v.access).map((a) => oneOf(a, ACCESSES));
  for (const key of ['tool', 'title', 'agent', 'url'] as const) {
    if (v[key] !== undefined) out[key] = texts(v[key]).map((s) => compiled<TextMatcher>(key === 'url' ? compileUrlMatcher(s) : compileTextMatcher(s)));
  }
  if (v.paths !== undefined) out.paths = texts(v.paths).map((s) => compiled<PathMatcher>(compilePathMatcher(s)));
  if (v.command !== undefined) out.command = texts(v.command).map((s) => compiled<CommandPattern>(parseCommandPattern(s)));
  if (v.input !== undefined) {
    out.input = list(v.input).map((i) => {
      const input = record(i);
      return { field: texts(input.field), fieldSource: text(input.fieldSource), matcher: compiled<TextMatcher>(compileTextMatcher(text(input.source))) };
    });
  }
  if (Object.keys(out).length === 0) throw new Unrecognised(); // the loader never gives an empty `match`
  return out;
}

function restoreExample(value: unknown): ExampleFacts {
  const v = record(value);
  const out: { -readonly [K in keyof ExampleFacts]: ExampleFacts[K] } = { location: location(v.location) };
  if (v.kind !== undefined) out.kind = oneOf(v.kind, TOOL_KINDS);
  if (v.access !== undefined) out.access = oneOf(v.access, ACCESSES);
  for (const key of ['tool', 'title', 'agent', 'command', 'url'] as const) if (v[key] !== undefined) out[key] = text(v[key]);
  if (v.paths !== undefined) out.paths = texts(v.paths);
  if ('input' in v) out.input = v.input;
  return out;
}

/**
 * The same structure: equal primitives, the same keys in the same order (an own key set to
 * undefined included), and functions with the same code (matchers compiled from the same source by
 * the same function; their behaviour is what the property test compares).
 */
export function sameStructure(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a === 'function' || typeof b === 'function') return typeof a === typeof b && String(a) === String(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof RegExp) return String(a) === String(b) && a.lastIndex === (b as RegExp).lastIndex;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length
    && keysA.every((key, i) => key === keysB[i] && sameStructure((a as Data)[key], (b as Data)[key]));
}
