import type { LineCounter, Node as YamlNode, Pair } from 'yaml';
import type { SourceLocation } from '../core/errors.js';
import { didYouMean, type Diagnostic, type DiagnosticCode } from './diagnostics.js';
import { yamlLib } from './yaml-lib.js';

/**
 * Reading one policy document's YAML nodes: typed values out, every problem reported as a
 * Diagnostic at file:line:column (with "did you mean" where a vocabulary is closed).
 */
export interface YamlReader {
  at(node: YamlNode | Pair | null | undefined): SourceLocation;
  report(code: DiagnosticCode, node: YamlNode | Pair | null | undefined, message: string, hint?: string, severity?: 'error' | 'warning', ruleId?: string): void;
  /** A mapping's keys checked against the allowed ones; the known entries by key. */
  checkKeys(map: YamlNode, allowed: readonly string[], what: string, ruleId?: string): Map<string, { node: YamlNode | null; pair: Pair }>;
  scalarString(node: YamlNode | null, what: string, ruleId?: string): string | undefined;
  /** A scalar or a list of scalars ("any of"). */
  stringList(node: YamlNode | null, what: string, ruleId?: string): { value: string; node: YamlNode }[] | undefined;
  oneOf<T extends string>(node: YamlNode | null, allowed: readonly T[], what: string, ruleId?: string): T | undefined;
}

export function yamlReader(file: string, lines: LineCounter, diagnostics: Diagnostic[]): YamlReader {
  const { isMap, isScalar, isSeq } = yamlLib();
  const at = (node: YamlNode | Pair | null | undefined): SourceLocation => {
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range
      ?? ((node as Pair | undefined)?.key as YamlNode | undefined)?.range;
    const pos = lines.linePos(range ? range[0] : 0);
    return { file, line: pos.line, column: pos.col };
  };
  const report: YamlReader['report'] = (code, node, message, hint, severity = 'error', ruleId) => {
    diagnostics.push({ severity, code, message, location: at(node), ...(hint ? { hint } : {}), ...(ruleId ? { ruleId } : {}) });
  };

  const checkKeys: YamlReader['checkKeys'] = (map, allowed, what, ruleId) => {
    const found = new Map<string, { node: YamlNode | null; pair: Pair }>();
    if (!isMap(map)) return found;
    for (const pair of map.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined) {
        report('bad_value', pair.key as YamlNode, `${what}: keys must be plain strings`, undefined, 'error', ruleId);
        continue;
      }
      if (!allowed.includes(key)) {
        const guess = didYouMean(key, allowed);
        report('unknown_key', pair.key as YamlNode, `${what}: unknown key \`${key}\``,
          guess ? `did you mean \`${guess}\`?` : `allowed keys: ${allowed.join(', ')}`, 'error', ruleId);
        continue;
      }
      found.set(key, { node: pair.value as YamlNode | null, pair });
    }
    return found;
  };

  const scalarString: YamlReader['scalarString'] = (node, what, ruleId) => {
    if (isScalar(node) && (typeof node.value === 'string' || typeof node.value === 'number' || typeof node.value === 'boolean')) {
      return String(node.value);
    }
    report('bad_value', node, `${what} must be a string`, undefined, 'error', ruleId);
    return undefined;
  };

  const stringList: YamlReader['stringList'] = (node, what, ruleId) => {
    const items = isSeq(node) ? node.items as YamlNode[] : [node];
    const out: { value: string; node: YamlNode }[] = [];
    for (const item of items) {
      const value = scalarString(item, what, ruleId);
      if (value === undefined) return undefined;
      out.push({ value, node: item as YamlNode });
    }
    if (out.length === 0) {
      report('bad_value', node, `${what} is an empty list, so the rule could never match`, 'remove the key or list at least one value', 'error', ruleId);
      return undefined;
    }
    return out;
  };

  const oneOf = <T extends string>(node: YamlNode | null, allowed: readonly T[], what: string, ruleId?: string): T | undefined => {
    const value = scalarString(node, what, ruleId);
    if (value === undefined) return undefined;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    const guess = didYouMean(value, allowed);
    report('bad_value', node, `${what}: \`${value}\` is not one of ${allowed.join(', ')}`,
      guess ? `did you mean \`${guess}\`?` : undefined, 'error', ruleId);
    return undefined;
  };

  return { at, report, checkKeys, scalarString, stringList, oneOf };
}
