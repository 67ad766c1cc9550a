/**
 * The red-team harness of the program-level tests: inside a `describe`, each group of escape lines
 * is never allowed under default.yaml or ci-strict.yaml, and the everyday lines of the same
 * programs stay allowed under default.yaml. Returns the shared bench for the file's other tests.
 */
import { afterAll, expect, it } from 'vitest';
import { sharedAnalyzer } from './helpers.js';
import { bundledPolicy, policyBench, type PolicyBench } from './policy-eval.js';

export function redTeamCases(escapes: Readonly<Record<string, readonly string[]>>, everyday: readonly string[], everydayTitle = 'everyday lines stay allowed under default.yaml'): () => Promise<PolicyBench> {
  let bench: PolicyBench | undefined;
  const open = async () => (bench ??= policyBench(await sharedAnalyzer()));
  afterAll(() => bench?.close());

  for (const [group, lines] of Object.entries(escapes)) {
    for (const name of ['default', 'ci-strict'] as const) {
      it(`${group}: never allowed under ${name}.yaml`, async () => {
        const b = await open();
        const allowed = lines.filter((line) => b.decide(bundledPolicy(name), line).decision === 'allow');
        expect(allowed).toEqual([]);
      });
    }
  }

  it(everydayTitle, async () => {
    const b = await open();
    const notAllowed = everyday.map((line) => ({ line, ...b.decide(bundledPolicy('default'), line) })).filter((r) => r.decision !== 'allow');
    expect(notAllowed).toEqual([]);
  });
  return open;
}
