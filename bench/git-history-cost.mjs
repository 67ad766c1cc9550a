#!/usr/bin/env node
/**
 * What a `git log -p` decision costs under policies/default.yaml: facts extracted (the history
 * listed from `.git` when dist/ has the lister) and evaluated, in-process, for each repository
 * given (default: this checkout). Median and range of 21 runs after 3 warm-ups.
 * Uses dist/ (run `npx tsc -p tsconfig.json`).
 *
 *   node bench/git-history-cost.mjs [REPO…] [--line 'git show HEAD']
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createShellAnalyzer } from '../dist/shell/index.js';
import { loadPolicyText } from '../dist/policy/load.js';
import { extractFacts } from '../dist/facts/extract.js';
import { evaluate } from '../dist/policy/evaluate.js';
import { realpathCanonicalizer } from '../dist/platform/canonicalize.js';
import { diskTreeLister } from '../dist/platform/tree-lister.js';
import { diskGitRevisionResolver } from '../dist/platform/git-revision-resolver.js';
import { diskFileExists } from '../dist/platform/file-exists.js';

const ROOT = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const lineAt = args.indexOf('--line');
const line = lineAt === -1 ? 'git log -p' : args.splice(lineAt, 2)[1];
const repositories = args.length > 0 ? args : [ROOT];
let listGitHistory;
try {
  listGitHistory = (await import('../dist/platform/git-history-lister.js')).diskGitHistoryLister();
} catch {
  // dist/ from before the lister: the line is decided without it.
}
const policy = { files: [loadPolicyText(readFileSync(join(ROOT, 'policies', 'default.yaml'), 'utf8'), 'default.yaml', 'user').policy] };
const shell = await createShellAnalyzer();
const canonicalize = realpathCanonicalizer();
for (const workspace of repositories) {
  const context = { workspace, home: '/nonexistent-home', agent: undefined, shell, canonicalize, fileExists: diskFileExists(), listTree: diskTreeLister(), resolveGitRevision: diskGitRevisionResolver(), listGitHistory };
  const times = [];
  let decision;
  for (let run = 0; run < 24; run++) {
    const start = performance.now();
    const facts = extractFacts({ toolCallId: 'cost', kind: 'execute', title: line, rawInput: { command: line } }, context);
    decision = evaluate(policy, facts, { home: context.home, canonicalize }).decision;
    if (run >= 3) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(`${line} in ${workspace}: ${decision}, median ${times[10].toFixed(2)} ms (${times[0].toFixed(2)}-${times[20].toFixed(2)}), ${listGitHistory ? 'history listed' : 'no lister'}`);
}
