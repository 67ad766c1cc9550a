/**
 * One pass over a parsed tree before it is walked: syntax errors, node types the walker does not
 * model (node-types.ts: unknown means unresolvable), and arithmetic on run-time values.
 */
import { ARITHMETIC_REASON, isArithmeticHazard } from './arithmetic-hazards.js';
import { isModelledNodeType } from './node-types.js';
import { isReadWriteMisparse } from './redirects.js';
import type { SyntaxNode } from './syntax.js';

export interface TreeFindings {
  readonly syntaxError: boolean;
  readonly unmodelled: readonly string[];
  readonly arithmetic: boolean;
  /** Substitutions and parameter expansions: the walk must reach every one (code-scanner.ts). */
  readonly code: readonly SyntaxNode[];
}

export const CODE_TYPES: ReadonlySet<string> = new Set(['command_substitution', 'process_substitution', 'expansion']);

const NONE: readonly never[] = Object.freeze([]);

export function checkTree(root: SyntaxNode): TreeFindings {
  let syntaxError = false;
  let arithmetic = false;
  let unmodelled: string[] | undefined;
  let code: SyntaxNode[] | undefined;
  // Two parallel stacks (no allocation per node: this runs on every line, plain ones included).
  const pending: SyntaxNode[] = [root];
  const inDoubleBrackets: boolean[] = [false];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const inDoubleBracket = inDoubleBrackets.pop()!;
    if (node.missing || (node.type === 'ERROR' && !isReadWriteMisparse(node))) syntaxError = true;
    if (node.named && !isModelledNodeType(node.type)) (unmodelled ??= []).push(node.type);
    if (!arithmetic && isArithmeticHazard(node, inDoubleBracket)) arithmetic = true;
    if (CODE_TYPES.has(node.type)) (code ??= []).push(node);
    const nowInDoubleBracket = inDoubleBracket || (node.type === 'test_command' && node.children[0]?.type === '[[');
    for (const child of node.children) {
      pending.push(child);
      inDoubleBrackets.push(nowInDoubleBracket);
    }
  }
  return { syntaxError, unmodelled: unmodelled ?? NONE, arithmetic, code: code ?? NONE };
}

/** The unresolvable reasons for `findings`. */
export function treeReasons(findings: TreeFindings): readonly string[] {
  if (!findings.syntaxError && !findings.arithmetic && findings.unmodelled.length === 0) return NONE;
  const reasons: string[] = [];
  if (findings.syntaxError) reasons.push('syntax error (incomplete or unsupported shell code)');
  for (const type of new Set(findings.unmodelled)) reasons.push(`shell construct the analysis does not model: ${type}`);
  if (findings.arithmetic) reasons.push(ARITHMETIC_REASON);
  return reasons;
}
