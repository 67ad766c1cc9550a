/**
 * Works around a tree-sitter-bash 0.25 misparse: after a pipeline of three or more commands, a
 * newline followed by an `&&`/`||` list is swallowed into the last command, e.g.
 * `a | b | c⏎d && e` parses as `a | (b | c d) && e`, hiding `d` as an argument of `c`.
 *
 * It also glues a newline to a following word that starts with a backslash: `ls⏎\rm -rf /` parses
 * as `ls` with the argument `⏎\rm`.
 *
 * An unescaped newline can never sit between two words of one simple command in bash, nor inside
 * an unquoted word (it ends the command), so either is a misparse. We end the command explicitly
 * with `;` right after its last word on that line (before any comment) and parse again.
 *
 * Lists misparsed inside pipelines (`a | b | c && d`) are rebuilt by pipeline-lists.ts.
 */
import type { BashParser } from './parser.js';
import { liftListsOutOfPipelines } from './pipeline-lists.js';
import type { SyntaxNode } from './syntax.js';

/** Repairs attempted before giving up (each repair fixes one newline). */
const MAX_REPAIRS = 64;

export type ParseOutcome =
  | { readonly root: SyntaxNode; readonly source: string }
  | { readonly failure: string };

export function parseWithRepairs(parser: BashParser, source: string): ParseOutcome {
  let text = source;
  for (let attempt = 0; attempt <= MAX_REPAIRS; attempt++) {
    const root = parser.parse(text);
    if (!root) return { failure: 'the shell code could not be parsed' };
    const cut = text.includes('\n') ? misparsedNewline(root) : undefined; // both misparses need a newline
    if (cut === undefined) return { root: liftListsOutOfPipelines(root), source: text };
    text = `${text.slice(0, cut)};${text.slice(cut)}`;
  }
  return { failure: 'the parser could not split the lines of this code reliably' };
}

/** Offset right after the word before the first newline found inside a simple command. */
function misparsedNewline(root: SyntaxNode): number | undefined {
  const pending: SyntaxNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type === 'command' || node.type === 'file_redirect') {
      const cut = newlineBetweenChildren(node);
      if (cut !== undefined) return cut;
    }
    for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!);
  }
  return undefined;
}

function newlineBetweenChildren(node: SyntaxNode): number | undefined {
  let lastWordEnd = node.start;
  for (let i = 1; i < node.children.length; i++) {
    const before = node.children[i - 1]!;
    const after = node.children[i]!;
    if (before.type !== 'comment') lastWordEnd = before.end; // never cut inside a comment
    const inWord = rawNewlineInWord(after);
    if (inWord !== undefined) return inWord === after.start ? lastWordEnd : inWord;
    if (before.type === 'heredoc_redirect') continue; // its body legitimately spans lines
    const gap = node.source.slice(before.end, after.start).replace(/\\\n/g, '');
    if (gap.includes('\n')) return lastWordEnd;
  }
  return undefined;
}

/** Offset of an unescaped newline inside an unquoted word (possibly the start of a concatenation). */
function rawNewlineInWord(node: SyntaxNode): number | undefined {
  const word = node.type === 'concatenation' ? node.children[0] : node;
  if (word?.type !== 'word') return undefined;
  for (let i = 0; i < word.text.length; i++) {
    if (word.text[i] === '\\') i++;
    else if (word.text[i] === '\n') return word.start + i;
  }
  return undefined;
}
