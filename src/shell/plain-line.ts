/**
 * Fast path for the commonest lines: plain words joined by `&&`, `||`, `;` and `|`
 * (`npm test && git status | head`). tree-sitter is most of what analysing a line costs
 * (bench/RESULTS.md, "The plain-line fast path"); such a line needs none of it. This is not a second shell grammar: it accepts only a tiny alphabet in which no character
 * has a meaning to bash besides being part of a word, builds the same syntax tree tree-sitter-bash
 * builds for it, and the rest of the analysis (statement walker, cd scopes, wrappers, hazards) runs
 * unchanged on that tree. Anything else — or anything the least bit unusual — returns undefined
 * and goes to the real parser.
 *
 * For `a | b | c && d` it builds bash's tree, which is tree-sitter's after the repair in
 * pipeline-lists.ts (tree-sitter nests the list inside the pipeline).
 *
 * Equality with the parser is checked by a property test (test/shell/plain-line.test.ts) that
 * compares whole analyses with and without this path on random lines of this alphabet and beyond.
 *
 * Accepted, exactly:
 * - words of `[A-Za-z0-9_./:=@%+,-]` only: no quotes, `$`, backslash, backquote, glob characters
 *   `*?[]`, `~`, `#`, braces, parentheses, `!`, `^`, `<>`, `&` or non-ASCII;
 * - separated by spaces or tabs (no newline, no other control character);
 * - operators `&&`, `||`, `|` and `;` between commands, plus one optional `;` at the end
 *   (`|&`, `&`, `;;`, `;&`, an operator with no command on either side: rejected);
 * - the first word of every command (the command name) has no `=` (an assignment), `@`, `%` or
 *   `+`, does not start with `-`, `:` or `,` (see PLAIN_COMMAND_NAME), and is not a reserved word
 *   or a declaration builtin (`if`, `time`, `export`, `unset`, … which tree-sitter parses specially);
 * - no argument is exactly `==` (tree-sitter-bash makes it a test operator token).
 */
import type { SyntaxNode } from './syntax.js';

/** Longest line tried; longer ones are rare and the parser handles them. */
const MAX_PLAIN_LENGTH = 2000;

/** Only characters that are word characters, blanks or parts of the four operators. */
const PLAIN_ALPHABET = /^[A-Za-z0-9_./:=@%+,\-\t |&;]+$/;

/**
 * A command name: the word alphabet without `=`, `@`, `%` and `+`, not starting with `-`, `:` or `,`
 * (tree-sitter-bash reads `a+:`, `a%`, `a@` as the start of an assignment or expansion, and drops
 * a `-` command name before an assignment-like word).
 */
const PLAIN_COMMAND_NAME = /^[A-Za-z0-9_./][A-Za-z0-9_./:,-]*$/;

/** Words that are not an ordinary command name at the start of a command. */
const SPECIAL_COMMAND_WORDS: ReadonlySet<string> = new Set([
  // reserved words
  'if', 'then', 'elif', 'else', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in',
  'function', 'time', 'coproc',
  // parsed as declaration_command / unset_command by tree-sitter-bash
  'declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv',
]);

type Operator = '&&' | '||' | '|' | ';';

interface Token {
  readonly operator: Operator | undefined;
  readonly start: number;
  readonly end: number;
}

/** The tree-sitter-bash tree of `source` if it is a plain line, else undefined. */
export function parsePlainLine(source: string): SyntaxNode | undefined {
  if (source.length > MAX_PLAIN_LENGTH || !PLAIN_ALPHABET.test(source)) return undefined;
  const tokens = tokenize(source);
  if (!tokens || tokens.length === 0) return undefined;
  return buildProgram(source, tokens);
}

/**
 * Trees built here hold only modelled statement and word types, words of the plain alphabet (no
 * `$`, backquote, `[`, `((`) and no error: tree-check.ts has nothing to find in them and skips them.
 * Their root carries this key (module-private, so no other tree can): cheaper than a WeakSet.
 */
const PLAIN_TREE: unique symbol = Symbol('plain tree');

export function isPlainTree(root: SyntaxNode): boolean {
  return (root as { readonly [PLAIN_TREE]?: true })[PLAIN_TREE] === true;
}

function tokenize(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === ' ' || ch === '\t') {
      i++;
    } else if (ch === '&') {
      if (source[i + 1] !== '&') return undefined; // `&` alone: a background job
      tokens.push({ operator: '&&', start: i, end: i + 2 });
      i += 2;
    } else if (ch === '|') {
      if (source[i + 1] === '|') {
        tokens.push({ operator: '||', start: i, end: i + 2 });
        i += 2;
      } else {
        tokens.push({ operator: '|', start: i, end: i + 1 });
        i += 1;
      }
    } else if (ch === ';') {
      tokens.push({ operator: ';', start: i, end: i + 1 });
      i += 1;
    } else {
      const start = i;
      while (i < source.length && isWordChar(source.charCodeAt(i))) i++;
      tokens.push({ operator: undefined, start, end: i });
    }
    // `|&`, `;;`, `;&`, `&&&`: operators we do not accept written next to `&` or `;`.
    const last = tokens[tokens.length - 1];
    if (last?.operator !== undefined && (source[i] === '&' || source[i] === ';')) return undefined;
  }
  return tokens;
}

function isWordChar(code: number): boolean {
  // Every character of the alphabet except blanks and `&|;`.
  return code !== 0x20 && code !== 0x09 && code !== 0x26 && code !== 0x7c && code !== 0x3b;
}

/**
 * program := list (';' list)* [';'];  list := pipeline (('&&' | '||') pipeline)*  (left-nested);
 * pipeline := command ('|' command)*  (flat);  command := word+.
 */
function buildProgram(source: string, tokens: readonly Token[]): SyntaxNode | undefined {
  const children: SyntaxNode[] = [];
  let at = 0;
  for (;;) {
    const list = parseList();
    if (!list) return undefined;
    children.push(list);
    const next = tokens[at];
    if (next === undefined) break;
    if (next.operator !== ';') return undefined;
    children.push(anonymous(source, ';', next.start, next.end));
    at++;
    if (at === tokens.length) break; // one `;` at the end
  }
  const start = children[0]!.start;
  const end = children[children.length - 1]!.end;
  const root: SyntaxNode & { readonly [PLAIN_TREE]: true } = {
    type: 'program', field: null, named: true, missing: false, start, end, text: source.slice(start, end), children, source, [PLAIN_TREE]: true,
  };
  return root;

  function parseList(): SyntaxNode | undefined {
    let left = parsePipeline();
    while (left) {
      const operator = tokens[at];
      if (operator?.operator !== '&&' && operator?.operator !== '||') return left;
      at++;
      const right = parsePipeline();
      if (!right) return undefined;
      left = node(source, 'list', null, left.start, right.end, [left, anonymous(source, operator.operator, operator.start, operator.end), right]);
    }
    return undefined;
  }

  function parsePipeline(): SyntaxNode | undefined {
    const first = parseCommand();
    if (!first) return undefined;
    if (tokens[at]?.operator !== '|') return first;
    const parts: SyntaxNode[] = [first];
    while (tokens[at]?.operator === '|') {
      const pipe = tokens[at++]!;
      const command = parseCommand();
      if (!command) return undefined;
      parts.push(anonymous(source, '|', pipe.start, pipe.end), command);
    }
    return node(source, 'pipeline', null, first.start, parts[parts.length - 1]!.end, parts);
  }

  function parseCommand(): SyntaxNode | undefined {
    const name = tokens[at];
    if (name === undefined || name.operator !== undefined) return undefined;
    const nameText = source.slice(name.start, name.end);
    if (!PLAIN_COMMAND_NAME.test(nameText) || SPECIAL_COMMAND_WORDS.has(nameText)) return undefined;
    at++;
    const word = node(source, 'word', null, name.start, name.end, NO_CHILDREN);
    const children: SyntaxNode[] = [node(source, 'command_name', 'name', name.start, name.end, [word])];
    while (tokens[at] !== undefined && tokens[at]!.operator === undefined) {
      const argument = tokens[at++]!;
      if (argument.end - argument.start === 2 && source.startsWith('==', argument.start)) return undefined;
      children.push(node(source, 'word', 'argument', argument.start, argument.end, NO_CHILDREN));
    }
    return node(source, 'command', null, name.start, children[children.length - 1]!.end, children);
  }
}

/** The children of every word and operator: shared (frozen). */
const NO_CHILDREN: readonly SyntaxNode[] = Object.freeze([]);

function node(source: string, type: string, field: string | null, start: number, end: number, children: readonly SyntaxNode[]): SyntaxNode {
  return { type, field, named: true, missing: false, start, end, text: source.slice(start, end), children, source };
}

function anonymous(source: string, type: string, start: number, end: number): SyntaxNode {
  return { type, field: null, named: false, missing: false, start, end, text: type, children: NO_CHILDREN, source };
}
