/**
 * The benign corpus (benign.yaml): everyday agent command lines keep their decisions under every
 * bundled policy. Decisions are recorded in benign.snapshot.yaml; a decision that became deny (and
 * was not deny in the snapshot) fails the test: a new false deny. allow → ask changes are printed,
 * not failures (the fail-closed analysis may ask more). BENIGN_UPDATE_SNAPSHOT=1 rewrites the
 * snapshot from the current decisions (review the diff).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Decision } from '../../src/core/decision.js';
import { benignCases } from './oracle/corpora.js';
import { sharedAnalyzer } from './helpers.js';
import { BUNDLED_POLICIES, bundledPolicy, policyBench, type BundledPolicy } from './policy-eval.js';

const SNAPSHOT = new URL('./benign.snapshot.yaml', import.meta.url);
const UPDATE = process.env.BENIGN_UPDATE_SNAPSHOT === '1';
type Decisions = Record<string, Partial<Record<BundledPolicy, Decision>>>;

const cases = benignCases();

describe('benign corpus: everyday agent lines keep their decisions', () => {
  it('has at least 300 lines', () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
    expect(new Set(cases.map((c) => c.line)).size).toBe(cases.length);
  });

  it('no decision became deny under any bundled policy (allow → ask is reported)', async () => {
    const bench = policyBench(await sharedAnalyzer());
    const current: Decisions = {};
    for (const name of BUNDLED_POLICIES) {
      const policy = bundledPolicy(name);
      for (const { line } of cases) (current[line] ??= {})[name] = bench.decide(policy, line).decision;
    }
    bench.close();
    const recorded: Decisions = existsSync(SNAPSHOT) ? ((parse(readFileSync(SNAPSHOT, 'utf8')) as { decisions?: Decisions } | null)?.decisions ?? {}) : {};
    const newDenies: string[] = [];
    const missing: string[] = [];
    const changes: string[] = [];
    for (const { line } of cases) {
      for (const name of BUNDLED_POLICIES) {
        const now = current[line]![name]!;
        const before = recorded[line]?.[name];
        if (before === undefined) { missing.push(`${name}: ${line}`); continue; }
        if (now === before) continue;
        if (now === 'deny') newDenies.push(`${name}: ${before} → deny: ${JSON.stringify(line)}`);
        else changes.push(`${name}: ${before} → ${now}: ${JSON.stringify(line)}`);
      }
    }
    for (const name of BUNDLED_POLICIES) {
      const asks = cases.filter((c) => current[c.line]![name] === 'ask').length;
      const denies = cases.filter((c) => current[c.line]![name] === 'deny').length;
      console.log(`benign corpus under ${name}.yaml: ${cases.length} lines — allowed ${cases.length - asks - denies}, asked ${asks} (${(100 * asks / cases.length).toFixed(1)} %), denied ${denies}`);
    }
    if (changes.length) console.log(`decisions changed since the snapshot (not failures):\n${changes.join('\n')}`);
    if (UPDATE) {
      const sorted = Object.fromEntries(cases.map((c) => [c.line, current[c.line]!]));
      writeFileSync(SNAPSHOT, `# Decisions of benign.yaml under the bundled policies (benign.test.ts; BENIGN_UPDATE_SNAPSHOT=1 rewrites it).\n${stringify({ decisions: sorted }, { lineWidth: 0 })}`);
      return;
    }
    expect(missing, 'lines without a recorded decision: run with BENIGN_UPDATE_SNAPSHOT=1 and review the diff').toEqual([]);
    expect(newDenies, 'new false denies').toEqual([]);
  });
});
