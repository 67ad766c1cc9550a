import type { LineCounter, YAMLError } from 'yaml';
import type { Diagnostic } from './diagnostics.js';

/**
 * YAML syntax errors at their real line and column. The parser's `linePos` is only filled in with
 * `prettyErrors`, which also rewrites the message; the error's offset (`pos`) is always there, so
 * it is mapped through the LineCounter here. Two adjustments make the position the one to fix:
 * an error placed at a line's indentation moves to the token indented wrongly (a tab stays where
 * the tab is), and a line indented deeper than a `key: value` above it — which YAML reads as that
 * value continuing into an implicit key — is reported at that line, as bad indentation; a string
 * never closed is reported at its opening quote, not where the text ends.
 * One diagnostic per position: the parser often reports one mistake twice.
 */
export function syntaxDiagnostics(errors: readonly YAMLError[], text: string, file: string, lines: LineCounter): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<number>();
  const overIndented = errors.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY' && text.slice(e.pos[0], e.pos[1]).includes('\n'));
  for (const error of errors) {
    let offset = error.pos[0];
    let message = `YAML syntax: ${error.message.split('\n')[0]}`;
    let code: YAMLError['code'] | 'OVER_INDENTED' | 'UNCLOSED_QUOTE' = error.code;
    const quote = /^Missing closing (["'])quote/.exec(error.message)?.[1];
    const opening = quote === undefined ? -1 : openingQuote(text, quote, offset);
    if (quote !== undefined && opening !== -1) {
      // Reported where the text ends; the mistake is the quote that opened the string.
      offset = opening;
      message = `YAML syntax: the string quoted here with ${quote} is never closed`;
      code = 'UNCLOSED_QUOTE';
    } else if (overIndented && offset === overIndented.pos[0] && (error.code === 'MULTILINE_IMPLICIT_KEY' || error.code === 'BLOCK_AS_IMPLICIT_KEY')) {
      offset = text.indexOf('\n', offset) + 1;
      message = 'YAML syntax: bad indentation: this line is indented deeper than the key above it';
      code = 'OVER_INDENTED';
    }
    if (error.code !== 'TAB_AS_INDENT') while (text[offset] === ' ') offset++;
    offset = Math.min(offset, text.length);
    if (seen.has(offset)) continue;
    seen.add(offset);
    const pos = lines.linePos(offset);
    out.push({ severity: 'error', code: 'yaml_syntax', message, location: { file, line: pos.line, column: pos.col }, hint: hintFor(code) });
  }
  return out;
}

/** The last quote before `end` that is not escaped (`\\"` in a double-quoted string, `''` in a single-quoted one). */
function openingQuote(text: string, quote: string, end: number): number {
  for (let i = text.lastIndexOf(quote, end - 1); i !== -1; i = text.lastIndexOf(quote, i - 1)) {
    if (quote === "'" && (text[i - 1] === "'" || text[i + 1] === "'")) { i--; continue; }
    let backslashes = 0;
    while (quote === '"' && text[i - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return -1;
}

function hintFor(code: YAMLError['code'] | 'OVER_INDENTED' | 'UNCLOSED_QUOTE'): string {
  switch (code) {
    case 'UNCLOSED_QUOTE': return 'close the string with the same quote on the same line, or remove the opening quote';
    case 'TAB_AS_INDENT': return 'indent with spaces: YAML does not allow tabs in indentation';
    case 'OVER_INDENTED': return 'indent this line like the key above it, or give that key no value on its line to start a nested mapping';
    case 'BAD_INDENT': case 'MISSING_CHAR':
      return 'check the indentation: keys of one mapping start in the same column, list items start with `- `';
    case 'BLOCK_AS_IMPLICIT_KEY': case 'MULTILINE_IMPLICIT_KEY':
      return 'write one `key: value` per line; a nested mapping starts on the next line, indented';
    case 'DUPLICATE_KEY': return 'each key may appear once in a mapping';
    default: return 'fix the YAML syntax at this position';
  }
}
