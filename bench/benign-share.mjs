#!/usr/bin/env node
/**
 * How often the default policy asks on everyday agent work: every line of the benign corpus
 * (test/shell/benign.yaml: tests, builds, git reads, searches, package scripts, file inspection)
 * decided as an execute request under policies/default.yaml, in a small throwaway workspace.
 * Uses dist/ (run `npx tsc -p tsconfig.json`).
 *
 *   node bench/benign-share.mjs          # one line of text
 *   node bench/benign-share.mjs --json   # machine-readable
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createShellAnalyzer } from '../dist/shell/index.js';
import { loadPolicyText } from '../dist/policy/load.js';
import { extractFacts } from '../dist/facts/extract.js';
import { evaluate } from '../dist/policy/evaluate.js';
import { realpathCanonicalizer } from '../dist/platform/canonicalize.js';
import { diskTreeLister } from '../dist/platform/tree-lister.js';
import { diskGitRevisionResolver } from '../dist/platform/git-revision-resolver.js';
import { diskGitHistoryLister } from '../dist/platform/git-history-lister.js';
import { diskFileExists } from '../dist/platform/file-exists.js';

const ROOT = join(import.meta.dirname, '..');
const cases = parse(readFileSync(join(ROOT, 'test', 'shell', 'benign.yaml'), 'utf8')).cases;
const loaded = loadPolicyText(readFileSync(join(ROOT, 'policies', 'default.yaml'), 'utf8'), 'default.yaml', 'user');
if (!loaded.policy) throw new Error(`policies/default.yaml does not load: ${JSON.stringify(loaded.diagnostics)}`);
const policy = { files: [loaded.policy] };

const dir = mkdtempSync(join(tmpdir(), 'acp-broker-benign-'));
const workspace = join(dir, 'project');
const home = join(dir, 'home');
mkdirSync(join(workspace, 'src'), { recursive: true });
mkdirSync(home);
writeFileSync(join(workspace, 'package.json'), '{ "name": "project", "scripts": { "test": "vitest" } }\n');
writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');

const shell = await createShellAnalyzer();
const canonicalize = realpathCanonicalizer();
const context = { workspace, home, agent: undefined, shell, canonicalize, fileExists: diskFileExists(), listTree: diskTreeLister(), resolveGitRevision: diskGitRevisionResolver(), listGitHistory: diskGitHistoryLister() };
const counts = { allow: 0, ask: 0, deny: 0 };
const byGroup = {};
for (const { line, group } of cases) {
  const facts = extractFacts({ toolCallId: 'benign', kind: 'execute', title: line, rawInput: { command: line } }, context);
  const { decision } = evaluate(policy, facts, { home, canonicalize });
  counts[decision]++;
  byGroup[group] ??= { lines: 0, ask: 0 };
  byGroup[group].lines++;
  if (decision === 'ask') byGroup[group].ask++;
}
rmSync(dir, { recursive: true, force: true });

const share = counts.ask / cases.length;
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ lines: cases.length, ...counts, askShare: share, byGroup }));
} else {
  console.log(`benign corpus under default.yaml: ${cases.length} lines, ${(100 * share).toFixed(1)} % ask (allow ${counts.allow}, ask ${counts.ask}, deny ${counts.deny})`);
  for (const [group, g] of Object.entries(byGroup)) console.log(`  ${group}: ${g.ask}/${g.lines} ask`);
}
