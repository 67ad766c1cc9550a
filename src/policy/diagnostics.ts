import type { SourceLocation } from '../core/errors.js';
import { formatLocation } from '../core/errors.js';

export type Severity = 'error' | 'warning';

/** Stable codes for policy problems. */
export type DiagnosticCode =
  | 'read_failed'
  | 'yaml_syntax'
  | 'not_a_map'
  | 'unknown_key'
  | 'missing_key'
  | 'bad_value'
  | 'bad_pattern'
  | 'duplicate_id'
  | 'bad_extends'
  | 'example_failed'
  | 'never_matches'
  | 'dead_pattern'
  | 'shadowed_rule'
  | 'no_examples';

export interface Diagnostic {
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly location: SourceLocation;
  /** How to fix it. */
  readonly hint?: string;
  readonly ruleId?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  const hint = d.hint ? `\n  hint: ${d.hint}` : '';
  return `${formatLocation(d.location)}: ${d.severity}: ${d.message}${hint}`;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** The closest candidate within a small edit distance, for "did you mean". */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  // A clear abbreviation (`exec` for `execute`) is the likeliest intent.
  const byPrefix = lower.length >= 3 ? candidates.filter((c) => c.toLowerCase().startsWith(lower)) : [];
  if (byPrefix.length === 1) return byPrefix[0];
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance (the words compared are short). */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previousDiagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, previousDiagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      previousDiagonal = above;
    }
  }
  return row[b.length]!;
}
