/**
 * The real policy engine on one shell line, as the broker decides an execute request: facts from
 * the tool call (the line, and any working-directory fields), real path canonicalisation, one of the
 * bundled policies. The workspace and home are a host copy of the oracle's seed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Decision } from '../../src/core/decision.js';
import { extractFacts } from '../../src/facts/extract.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicyText } from '../../src/policy/load.js';
import type { PolicySet } from '../../src/policy/types.js';
import { realpathCanonicalizer } from '../../src/platform/canonicalize.js';
import { diskFileExists } from '../../src/platform/file-exists.js';
import { diskTreeLister } from '../../src/platform/tree-lister.js';
import { diskGitHistoryLister } from '../../src/platform/git-history-lister.js';
import { diskGitRevisionResolver } from '../../src/platform/git-revision-resolver.js';
import type { ShellAnalyzer } from '../../src/shell/index.js';
import { seedTree } from './oracle/seed.js';

export const BUNDLED_POLICIES = ['default', 'ci-strict', 'enterprise-baseline'] as const;
export type BundledPolicy = (typeof BUNDLED_POLICIES)[number];

export function bundledPolicy(name: BundledPolicy): PolicySet {
  const file = new URL(`../../policies/${name}.yaml`, import.meta.url);
  const loaded = loadPolicyText(readFileSync(file, 'utf8'), `${name}.yaml`, 'user');
  if (!loaded.policy) throw new Error(`policies/${name}.yaml does not load: ${JSON.stringify(loaded.diagnostics)}`);
  return { files: [loaded.policy] };
}

export interface PolicyBench {
  readonly workspace: string;
  readonly home: string;
  decide(policy: PolicySet, line: string, rawInput?: Readonly<Record<string, string>>): { decision: Decision; reason: string };
  /** Remove the seeded workspace and home. */
  close(): void;
}

export function policyBench(shell: ShellAnalyzer): PolicyBench {
  const root = mkdtempSync(join(tmpdir(), 'acp-policy-corpus-'));
  const { workspace, home } = seedTree(root, true);
  const canonicalize = realpathCanonicalizer();
  const substitute = (value: string) => value.replaceAll('${workspace}', workspace).replaceAll('${home}', home);
  return {
    workspace,
    home,
    decide(policy, line, rawInput = {}) {
      const extra = Object.fromEntries(Object.entries(rawInput).map(([key, value]) => [key, substitute(value)]));
      const facts = extractFacts(
        { toolCallId: 'corpus', kind: 'execute', title: line, rawInput: { ...extra, command: line } },
        { workspace, home, agent: undefined, shell, canonicalize, fileExists: diskFileExists(), listTree: diskTreeLister(), resolveGitRevision: diskGitRevisionResolver(), listGitHistory: diskGitHistoryLister() },
      );
      const evaluation = evaluate(policy, facts, { home, canonicalize });
      return { decision: evaluation.decision, reason: evaluation.reason };
    },
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}
