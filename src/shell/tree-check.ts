/**
 * One pass over a parsed tree before it is walked: syntax errors, node types the walker does not
 * model (node-types.ts: unknown means unresolvable), and arithmetic on run-time values.
 */
import { ARITHMETIC_REASON, arithmeticNeeds } from './arithmetic-hazards.js';
import { isModelledNodeType } from './node-types.js';
import { isReadWriteMisparse } from './redirects.js';
import type { SyntaxNode } from './syntax.js';

export interface TreeFindings {
  readonly syntaxError: boolean;
  /** A word or string part whose text still holds `$(`, `${` or a backquote: code the parser did not see. */
  readonly hiddenCode: boolean;
  readonly unmodelled: readonly string[];
  readonly arithmetic: boolean;
  /** Arithmetic that is literal if these `$NAME` reads are same-line constant numbers where it runs. */
  readonly arithmeticReads: ReadonlyMap<SyntaxNode, readonly string[]>;
  /** Substitutions and parameter expansions: the walk must reach every one (code-scanner.ts). */
  readonly code: readonly SyntaxNode[];
}

export const CODE_TYPES: ReadonlySet<string> = new Set(['command_substitution', 'process_substitution', 'expansion']);

const NONE: readonly never[] = Object.freeze([]);
const NO_READS: ReadonlyMap<SyntaxNode, readonly string[]> = new Map();

export function checkTree(root: SyntaxNode): TreeFindings {
  let syntaxError = false;
  let hiddenCode = false;
  let arithmetic = false;
  let unmodelled: string[] | undefined;
  let code: SyntaxNode[] | undefined;
  let arithmeticReads: Map<SyntaxNode, readonly string[]> | undefined;
  // Two parallel stacks (no allocation per node: this runs on every line, plain ones included).
  const pending: SyntaxNode[] = [root];
  const inDoubleBrackets: boolean[] = [false];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const inDoubleBracket = inDoubleBrackets.pop()!;
    if (node.missing || (node.type === 'ERROR' && !isReadWriteMisparse(node))) syntaxError = true;
    if (node.named && !isModelledNodeType(node.type)) (unmodelled ??= []).push(node.type);
    const needs = arithmetic ? false : arithmeticNeeds(node, inDoubleBracket);
    if (needs === true) arithmetic = true;
    else if (needs !== false && needs.length > 0) (arithmeticReads ??= new Map()).set(node, needs);
    if (CODE_TYPES.has(node.type)) (code ??= []).push(node);
    // `${…}` is read from its text (parameter-expansion.ts): tree-sitter's parse of the inside is not used.
    if (node.type === 'expansion') continue;
    if ((node.type === 'word' || node.type === 'string_content') && !hiddenCode) hiddenCode = hasUnparsedCode(node.text);
    const nowInDoubleBracket = inDoubleBracket || (node.type === 'test_command' && node.children[0]?.type === '[[');
    for (const child of node.children) {
      pending.push(child);
      inDoubleBrackets.push(nowInDoubleBracket);
    }
  }
  return { syntaxError, hiddenCode, unmodelled: unmodelled ?? NONE, arithmetic, arithmeticReads: arithmeticReads ?? NO_READS, code: code ?? NONE };
}

/** An unescaped `$(`, `${` or backquote in text the parser took for a plain word. */
function hasUnparsedCode(text: string): boolean {
  if (!/[$`]/.test(text)) return false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === '`' || (ch === '$' && (text[i + 1] === '(' || text[i + 1] === '{'))) return true;
  }
  return false;
}

/** The unresolvable reasons for `findings`. */
export function treeReasons(findings: TreeFindings): readonly string[] {
  if (!findings.syntaxError && !findings.hiddenCode && !findings.arithmetic && findings.unmodelled.length === 0) return NONE;
  const reasons: string[] = [];
  if (findings.syntaxError) reasons.push('syntax error (incomplete or unsupported shell code)');
  if (findings.hiddenCode) reasons.push('shell code inside a word the parser did not recognise');
  for (const type of new Set(findings.unmodelled)) reasons.push(`shell construct the analysis does not model: ${type}`);
  if (findings.arithmetic) reasons.push(ARITHMETIC_REASON);
  return reasons;
}
