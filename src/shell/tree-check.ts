/**
 * One pass over a parsed tree before it is walked: syntax errors, node types the walker does not
 * model (node-types.ts: unknown means unresolvable), and arithmetic on run-time values.
 */
import { ARITHMETIC_REASON, arithmeticNeeds } from './arithmetic-hazards.js';
import { MODELLED_NODE_TYPES } from './node-types.js';
import { isPlainTree } from './plain-line.js';
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

/** What checkTree does with a named node type (one lookup per node: this runs on every line). */
const PLAIN = 0;
const WORD = 1; // may hide code the parser did not see
const CODE = 2;
const EXPANSION = 3;
const ARITHMETIC = 4; // may evaluate arithmetic (arithmetic-hazards.ts)
const TEST = 5;
const ROLES: ReadonlyMap<string, number> = new Map([
  ...Object.keys(MODELLED_NODE_TYPES).map((type) => [type, PLAIN] as const),
  ['word', WORD],
  ['string_content', WORD],
  ['command_substitution', CODE],
  ['process_substitution', CODE],
  ['expansion', EXPANSION],
  ...['arithmetic_expansion', 'compound_statement', 'c_style_for_statement', 'subscript', 'array', 'binary_expression', 'unary_expression'].map((type) => [type, ARITHMETIC] as const),
  ['test_command', TEST],
  ['ERROR', PLAIN],
]);

const NOTHING_FOUND: TreeFindings = { syntaxError: false, hiddenCode: false, unmodelled: NONE, arithmetic: false, arithmeticReads: NO_READS, code: NONE };

export function checkTree(root: SyntaxNode): TreeFindings {
  if (isPlainTree(root)) return NOTHING_FOUND;
  let syntaxError = false;
  let hiddenCode = false;
  let arithmetic = false;
  let unmodelled: string[] | undefined;
  let code: SyntaxNode[] | undefined;
  let arithmeticReads: Map<SyntaxNode, readonly string[]> | undefined;
  // Two parallel stacks (no allocation per node).
  const pending: SyntaxNode[] = [root];
  const inDoubleBrackets: boolean[] = [false];
  while (pending.length > 0) {
    const node = pending.pop()!;
    let inDoubleBracket = inDoubleBrackets.pop()!;
    if (node.missing || (node.type === 'ERROR' && !isReadWriteMisparse(node))) syntaxError = true;
    if (node.named) {
      const role = ROLES.get(node.type);
      if (role === undefined) {
        (unmodelled ??= []).push(node.type);
      } else if (role === WORD) {
        if (!hiddenCode) hiddenCode = hasUnparsedCode(node.text);
      } else if (role === CODE) {
        (code ??= []).push(node);
      } else if (role === EXPANSION) {
        // `${…}` is read from its text (parameter-expansion.ts): tree-sitter's parse of the inside is not used.
        (code ??= []).push(node);
        continue;
      } else if (role === ARITHMETIC && !arithmetic) {
        const needs = arithmeticNeeds(node, inDoubleBracket);
        if (needs === true) arithmetic = true;
        else if (needs !== false && needs.length > 0) (arithmeticReads ??= new Map()).set(node, needs);
      } else if (role === TEST) {
        inDoubleBracket ||= node.children[0]?.type === '[[';
      }
    }
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      pending.push(children[i]!);
      inDoubleBrackets.push(inDoubleBracket);
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
