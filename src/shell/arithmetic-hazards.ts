/**
 * Bash evaluates arithmetic and indexed-array subscripts recursively, and a command substitution
 * inside a *value* that reaches such an evaluation runs: with x='a[$(rm -rf ~)]', each of
 * `echo $((x))`, `echo $[x]`, `echo ${a[x]}`, `a=([x]=1)`, `[[ $x -eq 1 ]]`, `echo ${!x}` runs rm.
 * The value may come from anywhere at run time (a file the agent wrote, a substitution), so
 * arithmetic on anything but literal numbers is treated as unresolvable.
 */
import type { SyntaxNode } from './syntax.js';

export const ARITHMETIC_REASON = 'arithmetic or array subscript on run-time values (bash may run commands hidden in them)';
const ARITHMETIC_COMPARISONS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Inside arithmetic, only numbers and operators are literal. */
const LITERAL_ARITHMETIC = new Set(['number', 'binary_expression', 'unary_expression', 'ternary_expression', 'parenthesized_expression', 'postfix_expression']);
const C_STYLE_PARTS = new Set(['initializer', 'condition', 'update']);

/**
 * What evaluating `node` as arithmetic needs (`inDoubleBracket`: inside `[[ … ]]`): nothing
 * (`false`), or it is a hazard (`true`), or it is literal once the variables read as `$NAME` are
 * same-line constant numbers (their names: checked by the walker where the node runs).
 */
export function arithmeticNeeds(node: SyntaxNode, inDoubleBracket: boolean): boolean | readonly string[] {
  switch (node.type) {
    case 'arithmetic_expansion':
      return literalArithmeticReads(node) ?? true;
    case 'compound_statement':
      return node.children[0]?.type === '((' && (literalArithmeticReads(node) ?? true);
    case 'binary_expression': {
      const operator = node.children.find((child) => child.field === 'operator')?.text ?? '';
      if (!inDoubleBracket || !ARITHMETIC_COMPARISONS.has(operator)) return false;
      const operands = node.children.filter((child) => child.field === 'left' || child.field === 'right');
      if (operands.some((operand) => operand.type !== 'number' && !plainRead(operand))) return true;
      const names = operands.map(plainRead).filter((name): name is string => name !== undefined);
      return names.length > 0 ? names : false;
    }
    default:
      return isArithmeticHazard(node, inDoubleBracket);
  }
}

/** True when `node` itself evaluates run-time values as arithmetic (`inDoubleBracket`: inside `[[ … ]]`). */
function isArithmeticHazard(node: SyntaxNode, inDoubleBracket: boolean): boolean {
  switch (node.type) {
    case 'arithmetic_expansion':
      return !isLiteralArithmetic(node);
    case 'compound_statement':
      return node.children[0]?.type === '((' && !isLiteralArithmetic(node);
    case 'c_style_for_statement':
      return node.children.some((child) => child.field !== null && C_STYLE_PARTS.has(child.field) && !isLiteralArithmetic(child, true));
    case 'subscript':
      return !isLiteralIndex(node.children.find((child) => child.field === 'index'));
    case 'array':
      return node.children.some((element) => element.named && !isLiteralArrayElement(element.text));
    case 'expansion':
      return isIndirection(node);
    case 'binary_expression': {
      const operator = node.children.find((child) => child.field === 'operator')?.text ?? '';
      if (!inDoubleBracket || !ARITHMETIC_COMPARISONS.has(operator)) return false;
      return node.children.some((child) => (child.field === 'left' || child.field === 'right') && child.type !== 'number');
    }
    case 'unary_expression': {
      const operator = node.children.find((child) => child.field === 'operator')?.text;
      return inDoubleBracket && operator === '-v' && node.text.includes('[');
    }
    default:
      return false;
  }
}

/**
 * The names read as `$NAME` when only numbers, operators and such reads are below `node` (an empty
 * list: only literals); undefined when anything else is.
 */
function literalArithmeticReads(node: SyntaxNode): string[] | undefined {
  const names: string[] = [];
  const pending = [...node.children];
  while (pending.length > 0) {
    const child = pending.pop()!;
    if (!child.named) continue;
    const name = plainRead(child);
    if (name !== undefined) names.push(name);
    else if (!LITERAL_ARITHMETIC.has(child.type)) return undefined;
    else pending.push(...child.children);
  }
  return names;
}

/** NAME of a `$NAME` read (a plain variable name, not special or positional). */
function plainRead(node: SyntaxNode): string | undefined {
  if (node.type !== 'simple_expansion' || node.children.length !== 2) return undefined;
  const name = node.children[1]!;
  return name.type === 'variable_name' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name.text) ? name.text : undefined;
}

/** Only numbers and operators below `node` (tokens like `$((` and `))` are unnamed). */
function isLiteralArithmetic(node: SyntaxNode, isPart = false): boolean {
  if (isPart && !node.named) return true;
  const pending = [...node.children];
  while (pending.length > 0) {
    const child = pending.pop()!;
    if (!child.named) continue;
    if (!LITERAL_ARITHMETIC.has(child.type)) return false;
    pending.push(...child.children);
  }
  return true;
}

function isLiteralIndex(index: SyntaxNode | undefined): boolean {
  return !index || index.type === 'number' || index.text === '@' || index.text === '*';
}

/** `a=([2]=x y)`: an element written `[KEY]=…` has KEY evaluated as arithmetic (indexed arrays). */
function isLiteralArrayElement(text: string): boolean {
  if (!text.startsWith('[')) return true;
  return /^\[\d+\]\+?=/.test(text);
}

/** `${!name}` (indirection) but not `${!prefix@}`, `${!prefix*}` or `${!array[@]}` (name lists). */
function isIndirection(node: SyntaxNode): boolean {
  const [open, operator, ...rest] = node.children;
  if (open?.type !== '${' || operator?.type !== '!') return false;
  const last = rest[rest.length - 2]; // the child before `}`
  if (last && (last.type === '@' || last.type === '*')) return false;
  const index = rest[0]?.type === 'subscript' ? rest[0].children.find((child) => child.field === 'index') : undefined;
  return !(index && (index.text === '@' || index.text === '*'));
}
