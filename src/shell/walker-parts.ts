/** Small helpers of the statement walker: list shapes, missing nodes, builtin statements as argv. */
import type { AnalysisCollector, Scope } from './collector.js';
import { childByField, joinSplitWords, STATEMENT_TYPES, type SyntaxNode } from './syntax.js';
import { resolveWord, type Word } from './words.js';

/** A list's statement `index` (0: left, 1: right); loops, no arrays: this runs for every `&&` of every line. */
export function listStatement(list: SyntaxNode, index: number): SyntaxNode | undefined {
  const children = list.children;
  let seen = 0;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (!STATEMENT_TYPES.has(child.type) && child.type !== 'ERROR') continue;
    if (seen === index) return child;
    seen++;
  }
  return undefined;
}

/** A list's first `&&` or `||`. */
export function listOperator(list: SyntaxNode): string | undefined {
  const children = list.children;
  for (let i = 0; i < children.length; i++) {
    const type = children[i]!.type;
    if (type === '&&' || type === '||') return type;
  }
  return undefined;
}

/** Inserted by error recovery (`ls &&` gets a missing command name). */
export function isMissing(node: SyntaxNode): boolean {
  return node.missing || (node.children.length > 0 && node.children.every(isMissing));
}

export function isExitCommand(node: SyntaxNode): boolean {
  const name = node.type === 'command' ? childByField(node, 'name')?.text : undefined;
  return name === 'exit' || name === 'return';
}

export function sameDirectory(a: Scope, b: Scope): boolean {
  return a.cwd === b.cwd && a.dirStack?.length === b.dirStack?.length;
}

export function assignmentsIn(node: SyntaxNode): SyntaxNode[] {
  if (node.type === 'variable_assignment') return [node];
  return node.children.filter((child) => child.type === 'variable_assignment');
}

/** Words of `declare …`, `[[ … ]]` etc. as argv: word-like nodes resolved, operators as written. */
export function flattenWords(node: SyntaxNode, collector: AnalysisCollector, depth: number): Word[] {
  const words: Word[] = [];
  for (const child of joinSplitWords(node.children)) {
    if (child.type === 'comment') continue;
    if (WORD_TYPES.has(child.type)) words.push(resolveWord(child, collector.words));
    else if (child.children.length === 0 || depth > 32 || AS_WRITTEN_TYPES.has(child.type)) words.push(textWord(child.text));
    else words.push(...flattenWords(child, collector, depth + 1));
  }
  return words;
}

/** Kept whole, as written (`A=$(x)`, `a[1]`). */
const AS_WRITTEN_TYPES = new Set(['variable_assignment', 'subscript']);

const WORD_TYPES = new Set([
  'word', 'string', 'raw_string', 'ansi_c_string', 'translated_string', 'concatenation', 'simple_expansion',
  'expansion', 'number', 'command_substitution', 'process_substitution', 'arithmetic_expansion', 'regex',
  'extglob_pattern', 'test_operator', 'variable_name',
]);

function textWord(text: string): Word {
  return { text, dynamic: /[$`]/.test(text), glob: false, tildeUnresolved: false, history: false };
}
