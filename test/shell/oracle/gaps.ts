/**
 * Known gaps: lines that fail today while the analysis is being fixed (issue 11). A listed line
 * that still fails is printed and tolerated; a listed line that now passes fails the test (so the
 * list only shrinks and stays honest); an unlisted failure fails the test.
 * ORACLE_UPDATE_GAPS=1 rewrites the list from the current failures (review the diff).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

export interface Gap {
  /** Which check: the oracle under a shell, or a bundled policy that allowed an adversarial line. */
  readonly check: string;
  readonly line: string;
  /** Issue 11 class (1–12), or `generated` for a generated line. */
  readonly class: number | 'generated';
}

const FILE = new URL('./known-gaps.yaml', import.meta.url);
export const UPDATE_GAPS = process.env.ORACLE_UPDATE_GAPS === '1';

export function loadGaps(): Gap[] {
  const parsed = parse(readFileSync(FILE, 'utf8')) as { gaps?: Gap[] } | null;
  return parsed?.gaps ?? [];
}

const key = (check: string, line: string) => `${check}\0${line}`;

export interface Judgement {
  /** Failures not in the list: each fails the test. */
  readonly unlisted: string[];
  /** Listed lines that were checked and now pass: each fails the test. */
  readonly fixed: string[];
  /** Listed lines that still fail: printed only. */
  readonly tolerated: string[];
}

/**
 * Judge one check's results against the list. `checked` is every line the check looked at (a line
 * it did not look at this run, e.g. another seed's, is neither tolerated nor fixed); `failures`
 * maps a failing line to its description. `prune` (generated checks): an update keeps only this
 * run's failures for the check.
 */
export function judge(
  check: string, checked: readonly string[], failures: ReadonlyMap<string, string>, classOf: (line: string) => Gap['class'],
  given?: readonly Gap[], prune = false,
): Judgement {
  const gaps = given ?? loadGaps();
  const listed = new Set(gaps.filter((g) => g.check === check).map((g) => key(g.check, g.line)));
  const unlisted: string[] = [];
  const tolerated: string[] = [];
  const fixed: string[] = [];
  for (const [line, description] of failures) (listed.has(key(check, line)) ? tolerated : unlisted).push(description);
  for (const line of new Set(checked)) {
    if (listed.has(key(check, line)) && !failures.has(line)) fixed.push(`${check}: ${JSON.stringify(line)} passes now: remove it from known-gaps.yaml`);
  }
  if (UPDATE_GAPS && given === undefined) {
    // Re-read: test files run in parallel and each rewrites only its own check's entries.
    const checkedSet = new Set(checked);
    // A generated check's list is exactly this run's failures (lines of an older generator go).
    const kept = loadGaps().filter((g) => g.check !== check || (!prune && !checkedSet.has(g.line)) || failures.has(g.line));
    const known = new Set(kept.map((g) => key(g.check, g.line)));
    for (const line of failures.keys()) if (!known.has(key(check, line))) kept.push({ check, line, class: classOf(line) });
    writeGaps(kept);
  }
  return { unlisted, fixed, tolerated };
}

function writeGaps(gaps: readonly Gap[]): void {
  const header = readFileSync(FILE, 'utf8').split('\n').filter((l) => l.startsWith('#')).join('\n');
  const sorted = [...gaps].sort((a, b) => a.check.localeCompare(b.check) || String(a.class).localeCompare(String(b.class), 'en', { numeric: true }) || a.line.localeCompare(b.line));
  writeFileSync(FILE, `${header}\n${stringify({ gaps: sorted }, { lineWidth: 0 })}`);
}

/** Counts of listed gaps per check and class, for the report. */
export function gapSummary(): string {
  const counts = new Map<string, number>();
  for (const g of loadGaps()) counts.set(`${g.check} class ${g.class}`, (counts.get(`${g.check} class ${g.class}`) ?? 0) + 1);
  return [...counts].sort().map(([k, n]) => `${k}: ${n}`).join(', ');
}
