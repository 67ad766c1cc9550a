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

/** Token kinds; a token is its kind, start and end in the scratch arrays below. */
const WORD = 0;
const AND = 1;
const OR = 2;
const PIPE = 3;
const SEMICOLON = 4;
const OPERATOR_TEXT = ['', '&&', '||', '|', ';'] as const;

/**
 * The tokens of the line being parsed, in arrays reused by every call (parsing is synchronous and
 * never nested): no object per token. A line of at most MAX_PLAIN_LENGTH characters has at most
 * that many tokens.
 */
const kinds = new Uint8Array(MAX_PLAIN_LENGTH);
const starts = new Int32Array(MAX_PLAIN_LENGTH);
const ends = new Int32Array(MAX_PLAIN_LENGTH);

/** The tree-sitter-bash tree of `source` if it is a plain line, else undefined. */
export function parsePlainLine(source: string): SyntaxNode | undefined {
  if (source.length > MAX_PLAIN_LENGTH || !PLAIN_ALPHABET.test(source)) return undefined;
  const count = tokenize(source);
  if (count <= 0) return undefined;
  return new TreeBuilder(source, count).program();
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

/** How many tokens `source` has (in the scratch arrays); -1 when it holds an operator not accepted. */
function tokenize(source: string): number {
  let count = 0;
  let i = 0;
  while (i < source.length) {
    const ch = source.charCodeAt(i);
    const start = i;
    let kind: number;
    if (ch === 0x20 || ch === 0x09) {
      i++;
      continue;
    } else if (ch === 0x26) {
      if (source.charCodeAt(i + 1) !== 0x26) return -1; // `&` alone: a background job
      kind = AND;
      i += 2;
    } else if (ch === 0x7c) {
      kind = source.charCodeAt(i + 1) === 0x7c ? OR : PIPE;
      i += kind === OR ? 2 : 1;
    } else if (ch === 0x3b) {
      kind = SEMICOLON;
      i += 1;
    } else {
      while (i < source.length && isWordChar(source.charCodeAt(i))) i++;
      kind = WORD;
    }
    kinds[count] = kind;
    starts[count] = start;
    ends[count] = i;
    count++;
    // `|&`, `;;`, `;&`, `&&&`: operators we do not accept written next to `&` or `;`.
    if (kind !== WORD && (source.charCodeAt(i) === 0x26 || source.charCodeAt(i) === 0x3b)) return -1;
  }
  return count;
}

function isWordChar(code: number): boolean {
  // Every character of the alphabet except blanks and `&|;`.
  return code !== 0x20 && code !== 0x09 && code !== 0x26 && code !== 0x7c && code !== 0x3b;
}

/**
 * program := list (';' list)* [';'];  list := pipeline (('&&' | '||') pipeline)*  (left-nested);
 * pipeline := command ('|' command)*  (flat);  command := word+.
 */
class TreeBuilder {
  /** The next token. */
  private at = 0;

  constructor(private readonly source: string, private readonly count: number) {}

  private kindAt(index: number): number {
    return index < this.count ? kinds[index]! : -1;
  }

  program(): SyntaxNode | undefined {
    const { source } = this;
    const children: SyntaxNode[] = [];
    for (;;) {
      const list = this.list();
      if (!list) return undefined;
      children.push(list);
      if (this.at === this.count) break;
      if (kinds[this.at] !== SEMICOLON) return undefined;
      children.push(anonymous(source, ';', starts[this.at]!, ends[this.at]!));
      this.at++;
      if (this.at === this.count) break; // one `;` at the end
    }
    const start = children[0]!.start;
    const end = children[children.length - 1]!.end;
    const root: SyntaxNode & { readonly [PLAIN_TREE]: true } = {
      type: 'program', field: null, named: true, missing: false, start, end, text: source.slice(start, end), children, source, [PLAIN_TREE]: true,
    };
    return root;
  }

  private list(): SyntaxNode | undefined {
    let left = this.pipeline();
    while (left) {
      const operator = this.kindAt(this.at);
      if (operator !== AND && operator !== OR) return left;
      const at = this.at++;
      const right = this.pipeline();
      if (!right) return undefined;
      left = node(this.source, 'list', null, left.start, right.end, [left, anonymous(this.source, OPERATOR_TEXT[operator], starts[at]!, ends[at]!), right]);
    }
    return undefined;
  }

  private pipeline(): SyntaxNode | undefined {
    const first = this.command();
    if (!first) return undefined;
    if (this.kindAt(this.at) !== PIPE) return first;
    const parts: SyntaxNode[] = [first];
    while (this.kindAt(this.at) === PIPE) {
      const pipe = this.at++;
      const command = this.command();
      if (!command) return undefined;
      parts.push(anonymous(this.source, '|', starts[pipe]!, ends[pipe]!), command);
    }
    return node(this.source, 'pipeline', null, first.start, parts[parts.length - 1]!.end, parts);
  }

  private command(): SyntaxNode | undefined {
    const { source } = this;
    if (this.kindAt(this.at) !== WORD) return undefined;
    const nameStart = starts[this.at]!;
    const nameEnd = ends[this.at]!;
    const nameText = source.slice(nameStart, nameEnd);
    if (!PLAIN_COMMAND_NAME.test(nameText) || SPECIAL_COMMAND_WORDS.has(nameText)) return undefined;
    this.at++;
    let words = 0;
    while (this.kindAt(this.at + words) === WORD) {
      const at = this.at + words;
      if (ends[at]! - starts[at]! === 2 && source.startsWith('==', starts[at]!)) return undefined;
      words++;
    }
    const children = new Array<SyntaxNode>(words + 1);
    children[0] = nodeWithText(source, 'command_name', 'name', nameStart, nameEnd, nameText, [nodeWithText(source, 'word', null, nameStart, nameEnd, nameText, NO_CHILDREN)]);
    for (let k = 1; k <= words; k++, this.at++) children[k] = node(source, 'word', 'argument', starts[this.at]!, ends[this.at]!, NO_CHILDREN);
    return node(source, 'command', null, nameStart, children[words]!.end, children);
  }
}

/** The children of every word and operator: shared (frozen). */
const NO_CHILDREN: readonly SyntaxNode[] = Object.freeze([]);

function node(source: string, type: string, field: string | null, start: number, end: number, children: readonly SyntaxNode[]): SyntaxNode {
  return { type, field, named: true, missing: false, start, end, text: source.slice(start, end), children, source };
}

function nodeWithText(source: string, type: string, field: string | null, start: number, end: number, text: string, children: readonly SyntaxNode[]): SyntaxNode {
  return { type, field, named: true, missing: false, start, end, text, children, source };
}

function anonymous(source: string, type: string, start: number, end: number): SyntaxNode {
  return { type, field: null, named: false, missing: false, start, end, text: type, children: NO_CHILDREN, source };
}
