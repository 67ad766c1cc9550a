/**
 * Patterns that load but can never match what the broker produces. Path facts are absolute,
 * normalised paths (policy/patterns.ts anchors `~/…`, `${workspace}/…` and other relative patterns
 * at the home or the workspace, so a relative pattern is fine); command facts are simple commands
 * (a line is split at its operators before any rule sees it). Each finding says why and how to fix it.
 */

export interface PatternFinding {
  readonly message: string;
  readonly hint: string;
}

/** Dead-pattern findings for a `paths` pattern, most telling first. */
export function pathPatternFindings(source: string): PatternFinding[] {
  const found: PatternFinding[] = [];
  const segments = source.split('/');
  const starred = segments.findIndex((s) => s.includes('**') && s !== '**');
  if (starred !== -1) {
    const fixed = [...segments];
    fixed[starred] = fixSegment(segments[starred]!);
    found.push({
      message: `path pattern \`${source}\`: \`**\` spans directories only as a whole path segment; in \`${segments[starred]}\` it is read as \`*\`${source.startsWith('**') ? ', and a pattern starting with it is not anchored anywhere, so it never matches' : ''}`,
      hint: `write \`${fixed.join('/')}\``,
    });
  }
  const variable = /\$([A-Za-z_][A-Za-z0-9_]*)/.exec(source);
  if (variable) {
    const name = variable[1]!;
    const rest = source.slice(variable.index + variable[0].length);
    const fix = name === 'workspace' ? `\${workspace}${rest}` : /^(home|HOME)$/.test(name) ? `~${rest}` : undefined;
    found.push({
      message: `path pattern \`${source}\`: \`$${name}\` is not expanded (only \`\${workspace}\` and a leading \`~\` are), so it only matches a directory literally named \`$${name}\``,
      hint: fix ? `write \`${fix}\`` : 'write the directory out, or start the pattern with `${workspace}/` or `~/`',
    });
  }
  const bracket = unclosedBracket(source);
  if (bracket !== undefined) {
    found.push({
      message: `path pattern \`${source}\`: the \`[\` at character ${bracket + 1} is never closed, so it only matches a literal \`[\``,
      hint: 'close the character class (`[abc]`), or write `\\[` for a literal bracket',
    });
  }
  return found;
}

/** `**.env` → `**\/*.env`, `src**` → `src*\/**`, `a**b` → `a*b`. */
function fixSegment(segment: string): string {
  if (segment.startsWith('**')) return `**/*${segment.slice(2).replace(/\*\*/g, '*')}`;
  if (segment.endsWith('**')) return `${segment.slice(0, -2).replace(/\*\*/g, '*')}*/**`;
  return segment.replace(/\*\*/g, '*');
}

/** The index of a `[` that no `]` closes within its path segment (minimatch then reads it literally). */
function unclosedBracket(source: string): number | undefined {
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') { i++; continue; }
    if (ch !== '[') continue;
    // A `]` right after `[` (or `[!`, `[^`) is a member of the class, not its end.
    let j = i + 1;
    if (source[j] === '!' || source[j] === '^') j++;
    if (source[j] === ']') j++;
    let closed = false;
    for (; j < source.length && source[j] !== '/'; j++) {
      if (source[j] === '\\') { j++; continue; }
      if (source[j] === ']') { closed = true; break; }
    }
    if (!closed) return i;
    i = j;
  }
  return undefined;
}

const OPERATORS = ['&&', '||', ';;', '|&', '>>', '|', ';', '&', '>', '<'] as const;

/** A command pattern with an unquoted shell operator: it would need one simple command to contain another. */
export function commandPatternFindings(source: string): PatternFinding[] {
  const operator = unquotedOperator(source);
  if (!operator) return [];
  const parts = splitAt(source, operator.index, operator.text).map((p) => `"${p}"`);
  return [{
    message: `command pattern \`${source}\`: \`${operator.text}\` is a shell operator, and each simple command of a line is matched on its own, so this pattern can never match`,
    hint: operator.text === '>' || operator.text === '>>' || operator.text === '<'
      ? `match the command (${parts[0]}) and, for the redirection, a \`paths\` rule (redirections are path facts)`
      : `write one pattern per command: ${parts.join(', ')}`,
  }];
}

function unquotedOperator(source: string): { text: string; index: number } | undefined {
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (quote) { if (ch === quote) quote = undefined; continue; }
    if (ch === '\\') { i++; continue; }
    if (ch === "'" || ch === '"') { quote = ch; continue; }
    const text = OPERATORS.find((op) => source.startsWith(op, i));
    if (text) return { text, index: i };
  }
  return undefined;
}

function splitAt(source: string, index: number, operator: string): string[] {
  return [source.slice(0, index).trim(), source.slice(index + operator.length).trim()].filter((p) => p !== '');
}
