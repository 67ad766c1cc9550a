/**
 * Turns a word as written into the word(s) the shell passes to the program: quote removal,
 * backslash escapes, `$'…'` decoding, adjacent concatenation, `~` and `$HOME`, brace expansion.
 * Expansions only known at run time keep their source text (`$DIR`) and mark the word dynamic.
 */
import { decodeAnsiC } from './ansi-c.js';
import { expandBraces, type WordChar } from './brace-expansion.js';
import type { SyntaxNode } from './syntax.js';

export interface Word {
  readonly text: string;
  /** Part of it is a parameter expansion or substitution: `text` holds that part as written. */
  readonly dynamic: boolean;
  /** Has an unquoted `*`, `?` or `[`: the shell may glob-expand it. */
  readonly glob: boolean;
  /** Starts with an unquoted `~user`, `~+` or `~-`, which we do not expand. */
  readonly tildeUnresolved: boolean;
  /** Has an unquoted `!` that interactive bash would history-expand (`!!`, `!ls`). */
  readonly history: boolean;
  /** Part of it is the value of a same-line constant variable (`b=x; … $b`), substituted. */
  readonly fromVariable?: boolean;
}

export interface WordContext {
  readonly home: string;
  /** False when the line itself may change HOME, so `$HOME` is not known statically. */
  readonly homeIsReliable: boolean;
  /** The value of a same-line constant variable, if `name` is one here (same-line-constants.ts). */
  readonly constant?: (name: string, quoted: boolean) => string | undefined;
}

interface Segment {
  readonly text: string;
  readonly quoted: boolean;
  readonly dynamic: boolean;
  readonly variable?: boolean;
}

export type WordResult = { readonly words: Word[] } | { readonly error: string };

/**
 * A word made only of these characters expands to itself: no quote, backslash, `$`, `~`, `!`,
 * brace or glob character (the general path below gives exactly this, only slower).
 */
const INERT_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** The argv words one written word becomes (several after brace expansion). */
export function expandWord(node: SyntaxNode, context: WordContext): WordResult {
  const inert = inertWord(node);
  if (inert) return { words: [inert] };
  const split = splitConstant(node, context);
  if (split) return { words: split };
  const segments = expandTilde(segmentsOf(node, context), context);
  const history = hasHistoryExpansion(node);
  const braceable = segments.some((s) => !s.quoted && !s.dynamic && s.text.includes('{'));
  if (!braceable) return { words: [wordFrom(segments, history)] };
  const chars: WordChar[] = segments.flatMap((s) => [...s.text].map((c) => ({ c, quoted: s.quoted, dynamic: s.dynamic })));
  const expanded = expandBraces(chars);
  if (!expanded) return { error: `brace expansion of ${node.text} gives too many words` };
  const variable = segments.some((s) => s.variable === true);
  return { words: expanded.map((word) => wordFrom(word.map((ch) => ({ text: ch.c, quoted: ch.quoted, dynamic: ch.dynamic, variable })), history)) };
}

/** A word of literal characters only is itself, whatever the context (expandWord's first case, for callers that want no result wrapper). */
export function inertWord(node: SyntaxNode): Word | undefined {
  if ((node.type === 'word' || node.type === 'command_name') && INERT_WORD.test(node.text)) {
    return { text: node.text, dynamic: false, glob: false, tildeUnresolved: false, history: false };
  }
  return undefined;
}

/** One word, without brace expansion (redirect targets, assignment values, here-strings). */
export function resolveWord(node: SyntaxNode, context: WordContext): Word {
  return wordFrom(expandTilde(segmentsOf(node, context), context), hasHistoryExpansion(node));
}

function wordFrom(segments: readonly Segment[], history: boolean): Word {
  let text = '';
  let dynamic = false;
  let glob = false;
  let fromVariable = false;
  for (const segment of segments) {
    text += segment.text;
    dynamic ||= segment.dynamic;
    fromVariable ||= segment.variable === true;
    glob ||= !segment.quoted && !segment.dynamic && /[*?[]/.test(segment.text);
  }
  const first = segments[0];
  const tildeUnresolved = !!first && !first.quoted && !first.dynamic && first.text.startsWith('~');
  return fromVariable ? { text, dynamic, glob, tildeUnresolved, history, fromVariable } : { text, dynamic, glob, tildeUnresolved, history };
}

function expandTilde(segments: Segment[], context: WordContext): Segment[] {
  const first = segments[0];
  if (!first || first.quoted || first.dynamic || !first.text.startsWith('~')) return segments;
  const rest = first.text.slice(1);
  const endsHere = rest === '' && segments.length === 1;
  if (!rest.startsWith('/') && !endsHere) return segments; // ~user, ~+, ~-: left as written
  const expanded: Segment[] = [{ text: context.home, quoted: true, dynamic: false }];
  if (rest) expanded.push({ text: rest, quoted: false, dynamic: false });
  return [...expanded, ...segments.slice(1)];
}

function segmentsOf(node: SyntaxNode, context: WordContext): Segment[] {
  switch (node.type) {
    case 'word':
      return unquotedSegments(node.text);
    case 'number':
    case 'extglob_pattern':
    case 'regex':
    case 'test_operator':
    case 'variable_name':
    case 'file_descriptor':
    case 'brace_expression':
      return [{ text: node.text, quoted: false, dynamic: false }];
    case 'raw_string':
      return [{ text: node.text.slice(1, -1), quoted: true, dynamic: false }];
    case 'ansi_c_string':
      return [{ text: decodeAnsiC(node.text.slice(2, -1)), quoted: true, dynamic: false }];
    case 'string':
      return doubleQuotedSegments(node, context);
    case 'translated_string': {
      const inner = node.children.find((child) => child.type === 'string');
      return inner ? doubleQuotedSegments(inner, context) : [dynamicSegment(node.text)];
    }
    case 'concatenation':
    case 'command_name':
      return concatenationSegments(node, context);
    case 'simple_expansion':
    case 'expansion':
      return expansionSegments(node, context, false);
    default:
      // Substitutions, arithmetic, and anything we do not model: known only at run time.
      return [dynamicSegment(node.text)];
  }
}

function concatenationSegments(node: SyntaxNode, context: WordContext): Segment[] {
  const out: Segment[] = [];
  let position = node.start;
  node.children.forEach((child, index) => {
    if (child.start > position) out.push(...unquotedSegments(node.text.slice(position - node.start, child.start - node.start)));
    position = child.end;
    // `$"x"` split by tree-sitter into `$` and a string: a translated string, the `$` is not text.
    if (child.type === '$' && node.children[index + 1]?.type === 'string') return;
    out.push(...segmentsOf(child, context));
  });
  if (position < node.end) out.push(...unquotedSegments(node.text.slice(position - node.start)));
  return out;
}

/** `"…"`: children are string_content, expansions and substitutions; gaps are literal text. */
function doubleQuotedSegments(node: SyntaxNode, context: WordContext): Segment[] {
  const out: Segment[] = [];
  const contentStart = node.start + 1;
  const contentEnd = node.end - 1;
  let position = contentStart;
  const literal = (from: number, to: number) => {
    if (to > from) out.push({ text: unescapeDoubleQuoted(node.text.slice(from - node.start, to - node.start)), quoted: true, dynamic: false });
  };
  for (const child of node.children) {
    if (child.start < contentStart || child.end > contentEnd) continue; // the quotes themselves
    literal(position, child.start);
    if (child.type === 'string_content' || !child.named) literal(child.start, child.end);
    else if (child.type === 'simple_expansion' || child.type === 'expansion') out.push(...expansionSegments(child, context, true));
    else out.push(dynamicSegment(child.text));
    position = child.end;
  }
  literal(position, contentEnd);
  return out;
}

/**
 * `$HOME` / `${HOME}` are known (the context home), and so are same-line constants where bash's
 * result is certain: quoted, any value; unquoted, a value that neither splits nor globs (`a b`
 * alone as a word is split by expandWord). Every other expansion is dynamic.
 */
function expansionSegments(node: SyntaxNode, context: WordContext, quoted: boolean): Segment[] {
  const dollar = node.text.indexOf('$');
  // tree-sitter sometimes starts the node at whitespace before the `$` inside strings.
  const lead: Segment[] = dollar > 0 ? [{ text: node.text.slice(0, dollar), quoted, dynamic: false }] : [];
  const expression = node.text.slice(Math.max(dollar, 0));
  if (context.homeIsReliable && (expression === '$HOME' || expression === '${HOME}')) {
    return [...lead, { text: context.home, quoted: true, dynamic: false }];
  }
  const value = constantOf(expression, context, quoted);
  if (value !== undefined && (quoted || UNSPLIT_UNGLOBBED.test(value))) return [...lead, { text: value, quoted: true, dynamic: false, variable: true }];
  return [...lead, dynamicSegment(expression)];
}

/** A value an unquoted expansion passes on unchanged: not empty, no IFS white space, no glob character. */
const UNSPLIT_UNGLOBBED = /^[^ \t\n*?[\]\\()]+$/;
const VARIABLE_READ = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/;

function constantOf(expression: string, context: WordContext, quoted: boolean): string | undefined {
  if (!context.constant) return undefined;
  const match = VARIABLE_READ.exec(expression);
  const name = match?.[1] ?? match?.[2];
  return name === undefined ? undefined : context.constant(name, quoted);
}

/** An unquoted `$x` alone as a word whose constant value has default-IFS white space: bash's fields. */
function splitConstant(node: SyntaxNode, context: WordContext): Word[] | undefined {
  if (node.type !== 'simple_expansion' && node.type !== 'expansion') return undefined;
  const value = constantOf(node.text, context, false);
  if (value === undefined || !/[ \t\n]/.test(value)) return undefined;
  const fields = value.split(/[ \t\n]+/).filter((field) => field !== '');
  if (fields.length === 0 || !fields.every((field) => UNSPLIT_UNGLOBBED.test(field))) return undefined;
  return fields.map((text) => ({ text, dynamic: false, glob: false, tildeUnresolved: false, history: false, fromVariable: true }));
}

function dynamicSegment(text: string): Segment {
  return { text, quoted: true, dynamic: true };
}

/** Unquoted text: `\x` quotes x, backslash-newline disappears. */
function unquotedSegments(text: string): Segment[] {
  if (!text.includes('\\')) return [{ text, quoted: false, dynamic: false }];
  const out: Segment[] = [];
  let plain = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\' || i + 1 >= text.length) {
      plain += ch;
      continue;
    }
    const next = text[++i]!;
    if (next === '\n') continue;
    if (plain) out.push({ text: plain, quoted: false, dynamic: false });
    plain = '';
    out.push({ text: next, quoted: true, dynamic: false });
  }
  if (plain) out.push({ text: plain, quoted: false, dynamic: false });
  return out;
}

/** Inside double quotes a backslash only escapes `$`, backquote, `"`, `\` and newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.includes('\\') ? text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c)) : text;
}

/** Unquoted (or double-quoted) `!` followed by something bash's history expansion would use. */
function hasHistoryExpansion(node: SyntaxNode): boolean {
  const pending = [node];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (current.type === 'word' || current.type === 'string_content') {
      if (/!(?![\s=("]|$)/.test(current.text)) return true;
    } else if (!NO_HISTORY_INSIDE.has(current.type)) {
      pending.push(...current.children);
    }
  }
  return false;
}

/** Single quotes disable history expansion; substitutions are checked as commands of their own. */
const NO_HISTORY_INSIDE = new Set(['raw_string', 'ansi_c_string', 'command_substitution', 'process_substitution']);
