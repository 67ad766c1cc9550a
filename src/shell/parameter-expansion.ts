/**
 * `${…}` parameter expansions, read from their text the way bash reads them (tree-sitter's parse of
 * the inside is not reliable: `${x:-`cmd`}` comes back as a plain word). What matters for safety:
 * - words after `:-` `:=` `:?` `:+` `-` `=` `?` `+`, patterns and replacements (`#` `%` `/` `^` `,`)
 *   are expanded by bash, so substitutions in them run: returned as `code` for the walker;
 * - offsets and lengths (`${x:o:l}`) and subscripts (`${a[i]}`) are arithmetic: literal numbers only;
 * - `${!x}` (indirection) and `${x@P}` (prompt expansion runs substitutions in the value) evaluate
 *   a value as a name or code: unresolvable;
 * - `${X:=v}` / `${X=v}` assign X.
 */
import { isHazardousVariable } from './hazards.js';

export interface ParameterExpansion {
  /** Why bash may run something we cannot see; undefined when fully modelled. */
  readonly hazard: string | undefined;
  /** Words bash expands (defaults, patterns, replacements): their substitutions run. */
  readonly code: readonly string[];
  /** The variable this expansion assigns (`${x:=v}`), if any. */
  readonly assigns: string | undefined;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const SPECIAL = /^[0-9]+|^[@*#?$!\-]/;
/** Operators followed by a word bash expands; longest first. */
const WORD_OPERATORS = [':-', ':=', ':?', ':+', '##', '%%', '//', '/#', '/%', '^^', ',,', '-', '=', '?', '+', '#', '%', '/', '^', ','] as const;
/** `${x@Q}` etc.: transformations that only quote or re-case the value. `@P` runs code. */
const SAFE_TRANSFORMS = new Set(['Q', 'E', 'A', 'K', 'a', 'U', 'u', 'L', 'k']);
/** A substring offset or length bash accepts as a plain number. */
const LITERAL_NUMBER = /^\s*(?:-?\s*\d+|\(\s*-?\s*\d+\s*\))?\s*$/;

/** `text` is the expansion as written, from `${` to its closing `}`. */
export function parseParameterExpansion(text: string): ParameterExpansion {
  const start = text.indexOf('${');
  if (start < 0 || !text.endsWith('}') || closingBrace(text, start + 2) !== text.length - 1) {
    return hazard(`parameter expansion whose end the analysis cannot find: ${text}`);
  }
  const body = text.slice(start + 2, -1);
  if (body.startsWith('#') && body.length > 1) {
    const length = parameter(body.slice(1));
    if (length && length.rest === '') return length.hazard ? hazard(length.hazard) : none();
  }
  if (body.startsWith('!') && body.length > 1) return indirection(body.slice(1), text);
  const parsed = parameter(body);
  if (!parsed) return hazard(`parameter expansion the analysis does not model: ${text}`);
  if (parsed.hazard) return hazard(parsed.hazard);
  return operation(parsed.name, parsed.rest, text);
}

function operation(name: string, rest: string, text: string): ParameterExpansion {
  if (rest === '') return none();
  if (rest.startsWith('@')) {
    return rest.length === 2 && SAFE_TRANSFORMS.has(rest[1]!) ? none() : hazard(`parameter transformation that evaluates the value: ${text}`);
  }
  for (const operator of WORD_OPERATORS) {
    if (!rest.startsWith(operator)) continue;
    const word = rest.slice(operator.length);
    const assigns = operator === ':=' || operator === '=' ? name : undefined;
    if (assigns && isHazardousVariable(assigns)) return hazard(`\${${assigns}${operator}…} sets ${assigns}, which changes what a command runs`);
    return { hazard: undefined, code: hasCode(word) ? [word] : [], assigns };
  }
  if (rest.startsWith(':')) {
    const parts = splitTopLevel(rest.slice(1), ':');
    if (parts.length <= 2 && parts.every((part) => LITERAL_NUMBER.test(part))) return none();
    return hazard(`substring offset or length that bash evaluates as arithmetic: ${text}`);
  }
  return hazard(`parameter expansion the analysis does not model: ${text}`);
}

/** `${!x*}` `${!x@}` list names, `${!a[@]}` lists keys; anything else reads a value as a name. */
function indirection(body: string, text: string): ParameterExpansion {
  if (/^[A-Za-z_][A-Za-z0-9_]*[*@]$/.test(body) || /^[A-Za-z_][A-Za-z0-9_]*\[[@*]\]$/.test(body)) return none();
  return hazard(`indirect expansion evaluates a value as a name (and its subscript as arithmetic): ${text}`);
}

interface Parameter {
  readonly name: string;
  readonly rest: string;
  readonly hazard?: string;
}

/** The parameter at the start of `body` (name, positional or special, with a subscript), or undefined. */
function parameter(body: string): Parameter | undefined {
  const name = NAME.exec(body)?.[0] ?? SPECIAL.exec(body)?.[0];
  if (!name) return undefined;
  const rest = body.slice(name.length);
  if (!rest.startsWith('[') || !NAME.test(name)) return { name, rest };
  const end = rest.indexOf(']');
  if (end < 0) return undefined;
  const index = rest.slice(1, end);
  const literal = /^(\d+|@|\*)$/.test(index);
  return { name, rest: rest.slice(end + 1), ...(literal ? {} : { hazard: `array subscript that bash evaluates as arithmetic: [${index}]` }) };
}

/** Something in `word` bash would expand or run: `$`, a backquote, a process substitution. */
function hasCode(word: string): boolean {
  return /[$`]|[<>]\(/.test(word);
}

/**
 * The offset of the `}` that closes an expansion whose body starts at `from`: nested `${`, `$(`,
 * `$((`, backquotes, quotes and backslashes are skipped as bash skips them.
 */
function closingBrace(text: string, from: number): number {
  const closers: string[] = ['}'];
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    const top = closers[closers.length - 1];
    if (ch === '\\') {
      i++;
    } else if (top === '`' || top === '"' || top === "'") {
      if (ch === top) closers.pop();
      else if (top !== "'" && ch === '$' && (text[i + 1] === '{' || text[i + 1] === '(')) closers.push(text[++i] === '{' ? '}' : ')');
    } else if (ch === '`' || ch === '"' || ch === "'") {
      closers.push(ch);
    } else if (ch === '$' && (text[i + 1] === '{' || text[i + 1] === '(')) {
      closers.push(text[++i] === '{' ? '}' : ')');
    } else if (ch === '(' && top === ')') {
      closers.push(')');
    } else if (ch === top) {
      closers.pop();
      if (closers.length === 0) return i;
    }
  }
  return -1;
}

function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    if (ch === separator && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function none(): ParameterExpansion {
  return { hazard: undefined, code: [], assigns: undefined };
}

function hazard(reason: string): ParameterExpansion {
  return { hazard: reason, code: [], assigns: undefined };
}
