import type { LineCounter, YAMLError } from 'yaml';
import type { Diagnostic } from './diagnostics.js';

/**
 * YAML syntax errors at their real line and column. The parser's `linePos` is only filled in with
 * `prettyErrors`, which also rewrites the message; the error's offset (`pos`) is always there, so
 * it is mapped through the LineCounter here. Two adjustments make the position the one to fix:
 * an error placed at a line's indentation moves to the token indented wrongly (a tab stays where
 * the tab is), and a line indented deeper than a `key: value` above it — which YAML reads as that
 * value continuing into an implicit key — is reported at that line, as bad indentation.
 * One diagnostic per position: the parser often reports one mistake twice.
 */
export function syntaxDiagnostics(errors: readonly YAMLError[], text: string, file: string, lines: LineCounter): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<number>();
  const overIndented = errors.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY' && text.slice(e.pos[0], e.pos[1]).includes('\n'));
  for (const error of errors) {
    let offset = error.pos[0];
    let message = `YAML syntax: ${error.message.split('\n')[0]}`;
    let code: YAMLError['code'] | 'OVER_INDENTED' = error.code;
    if (overIndented && offset === overIndented.pos[0] && (error.code === 'MULTILINE_IMPLICIT_KEY' || error.code === 'BLOCK_AS_IMPLICIT_KEY')) {
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

function hintFor(code: YAMLError['code'] | 'OVER_INDENTED'): string {
  switch (code) {
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
