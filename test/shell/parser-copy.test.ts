/**
 * The tree copy of src/shell/parser.ts reads a node's type name and named flag from a per-type
 * table and asks `missing` only of zero-width nodes: it must build exactly the tree the reference
 * copy builds by asking the cursor every property of every node. Checked on every line of the
 * corpora and on random shell-like lines (errors and missing nodes included).
 *
 * SHELL_PROPERTY_RUNS scales the number of runs (default below).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadBashParser, loadReferenceBashParser, type BashParser } from '../../src/shell/parser.js';

const RUNS = Number(process.env.SHELL_PROPERTY_RUNS ?? 4000);
const TIMEOUT = Math.max(30_000, RUNS * 5);

let fast: BashParser;
let reference: BashParser;

beforeAll(async () => {
  fast = await loadBashParser();
  reference = await loadReferenceBashParser();
});

function corpusLines(): string[] {
  const read = (name: string) => parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as Record<string, unknown>;
  const lines: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') lines.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.line === 'string') lines.push(record.line);
      else Object.values(record).forEach(collect);
    }
  };
  for (const name of ['./corpus.yaml', './adversarial.yaml', './benign.yaml']) collect(read(name).cases);
  return lines;
}

/** Pieces of bash syntax, broken ones included (unclosed quotes and groups make errors and missing nodes). */
const PIECES = [
  'echo', 'ls', 'git', 'rm -rf', 'a', 'b=1', ' ', ' ', '\t', '\n', ';', '&&', '||', '|', '&', '(', ')', '{', '}', '$(', '`',
  '"', "'", '$x', '${x:-y}', '${', '$((1+2))', '((', '))', '[[', ']]', '[', ']', '<', '>', '>>', '2>&1', '<<EOF\nx\nEOF\n',
  'if', 'then', 'fi', 'for', 'in', 'do', 'done', 'case', 'esac', 'while', 'function f', '!', '*', '?', '~', '#c', '\\', '\\\n',
  "$'a\\n'", '$"x"', 'x[1]=2', 'declare -a', 'export', '=', ':', ',', '.', '/tmp', 'é', '😀',
];

describe('parser tree copy', () => {
  it('equals the reference copy on every corpus line', () => {
    const lines = corpusLines();
    expect(lines.length).toBeGreaterThan(700);
    for (const line of lines) expect(fast.parse(line), line).toEqual(reference.parse(line));
  });

  it('equals the reference copy on random shell-like lines', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }), (pieces) => {
        const line = pieces.join('');
        expect(fast.parse(line)).toEqual(reference.parse(line));
      }),
      { numRuns: RUNS },
    );
  }, TIMEOUT);

  it('equals the reference copy on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (line) => {
        expect(fast.parse(line)).toEqual(reference.parse(line));
      }),
      { numRuns: RUNS },
    );
  }, TIMEOUT);

  it('copies missing nodes (zero-width, inserted by error recovery)', () => {
    for (const [line, expected] of [['echo $(ls', ')'], ['a && ', 'word'], ['while true; do', 'done']] as const) {
      const tree = fast.parse(line);
      const missing: string[] = [];
      const visit = (node: NonNullable<typeof tree>): void => {
        if (node.missing) missing.push(node.type);
        node.children.forEach(visit);
      };
      visit(tree!);
      expect(missing, line).toEqual([expected]);
      expect(tree, line).toEqual(reference.parse(line));
    }
  });
});
