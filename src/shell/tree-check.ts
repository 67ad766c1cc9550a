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

export function checkTree(root: SyntaxNode): TreeFindings {
  let syntaxError = false;
  let arithmetic = false;
  let unmodelled: string[] | undefined;
  const code: SyntaxNode[] = [];
  const pending: { node: SyntaxNode; inDoubleBracket: boolean }[] = [{ node: root, inDoubleBracket: false }];
  while (pending.length > 0) {
    const { node, inDoubleBracket } = pending.pop()!;
    if (node.missing || (node.type === 'ERROR' && !isReadWriteMisparse(node))) syntaxError = true;
    if (node.named && !isModelledNodeType(node.type)) (unmodelled ??= []).push(node.type);
    if (!arithmetic && isArithmeticHazard(node, inDoubleBracket)) arithmetic = true;
    if (CODE_TYPES.has(node.type)) code.push(node);
    const nowInDoubleBracket = inDoubleBracket || (node.type === 'test_command' && node.children[0]?.type === '[[');
    for (const child of node.children) pending.push({ node: child, inDoubleBracket: nowInDoubleBracket });
  }
  return { syntaxError, unmodelled: unmodelled ?? [], arithmetic, code };
}

/** The unresolvable reasons for `findings`. */
export function treeReasons(findings: TreeFindings): string[] {
  const reasons: string[] = [];
  if (findings.syntaxError) reasons.push('syntax error (incomplete or unsupported shell code)');
  for (const type of new Set(findings.unmodelled)) reasons.push(`shell construct the analysis does not model: ${type}`);
  if (findings.arithmetic) reasons.push(ARITHMETIC_REASON);
  return reasons;
}
