/** The adversarial and benign corpora (test/shell/*.yaml), as the oracle and policy tests read them. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface AdversarialCase {
  readonly line: string;
  /** Issue 11 class, 1–12. */
  readonly class: number;
  /** What the line must never be: always `allow`. */
  readonly must_not: 'allow';
  /** Tool-call fields beside the command (a shell tool's working directory, classes 11–12). */
  readonly rawInput?: Readonly<Record<string, string>>;
  readonly note?: string;
}

export interface BenignCase {
  readonly line: string;
  /** Which kind of everyday work it is (tests, build, git, search, package, inspect, …). */
  readonly group: string;
}

const read = (name: string) => parse(readFileSync(new URL(`../${name}`, import.meta.url), 'utf8')) as { cases: unknown[] };

export function adversarialCases(): AdversarialCase[] {
  return read('adversarial.yaml').cases.map((entry, i) => {
    const c = entry as AdversarialCase;
    if (typeof c.line !== 'string' || !Number.isInteger(c.class) || c.class < 1 || c.class > 12 || c.must_not !== 'allow') {
      throw new Error(`adversarial.yaml case #${i + 1} is malformed: ${JSON.stringify(entry)}`);
    }
    return c;
  });
}

export function benignCases(): BenignCase[] {
  return read('benign.yaml').cases.map((entry, i) => {
    const c = entry as BenignCase;
    if (typeof c.line !== 'string' || typeof c.group !== 'string') throw new Error(`benign.yaml case #${i + 1} is malformed: ${JSON.stringify(entry)}`);
    return c;
  });
}
