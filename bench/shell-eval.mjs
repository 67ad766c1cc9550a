#!/usr/bin/env node
/**
 * In-process cost of one permission decision for a shell line: shell analysis + facts + policy
 * evaluation, against a generated 200-rule policy (issue 6). Uses dist/ (run `npx tsc -p tsconfig.json`).
 *
 *   node bench/shell-eval.mjs            # table with targets and PASS/MISS
 *   node bench/shell-eval.mjs --json     # machine-readable
 *
 * Distinct lines vary a number N over a cycle far larger than the analysis cache, so every call of
 * those rows is a cache miss; the "repeated" row analyses one line over and over (cache hit).
 * Cases are measured in interleaved rounds; each row reports the median (and 90th percentile) of
 * the per-call time (µs) over batches of 50 calls. The decision shown is the one for the line
 * without N.
 */
import { pathToFileURL } from 'node:url';
import { createShellAnalyzer } from '../dist/shell/index.js';
import { loadPolicyText } from '../dist/policy/load.js';
import { extractFacts } from '../dist/facts/extract.js';
import { lexicalOnly } from '../dist/facts/paths.js';
import { evaluate } from '../dist/policy/evaluate.js';

const WORKSPACE = '/w';
const HOME = '/home/dev';

/** ~200 rules: mostly `command` allow/deny rules over many programs, some `paths` rules, a few others. */
export function generatePolicy() {
  const programs = [
    'npm', 'git', 'node', 'npx', 'yarn', 'pnpm', 'make', 'cargo', 'go', 'python', 'pip', 'pytest', 'ls', 'cat', 'grep', 'rg',
    'find', 'sed', 'awk', 'head', 'tail', 'wc', 'sort', 'uniq', 'diff', 'echo', 'printf', 'curl', 'wget', 'docker', 'kubectl',
    'terraform', 'aws', 'gcloud', 'ssh', 'scp', 'rsync', 'tar', 'zip', 'unzip', 'chmod', 'chown', 'rm', 'mv', 'cp', 'mkdir',
    'touch', 'ln', 'tsc', 'eslint', 'prettier', 'jest', 'vitest', 'deno', 'bun', 'ruby', 'gem', 'bundle', 'java', 'mvn',
  ];
  const subcommands = ['test', 'run lint', 'run build', 'status', 'diff', 'log', 'install', 'version', 'help', 'list'];
  const rules = [];
  let n = 0;
  const id = (prefix) => `${prefix}-${++n}`;
  const quote = (s) => JSON.stringify(s);
  // Command allow rules: program + subcommand.
  for (const program of programs) {
    for (const sub of subcommands.slice(0, 2)) {
      rules.push({ id: id('allow'), decision: 'allow', match: `{ kind: execute, command: [${quote(`${program} ${sub}`)}] }` });
    }
  }
  // Command deny / ask rules, with options and globs.
  const dangerous = ['rm -rf /', 'rm -rf ~', 'git push --force', 'git reset --hard', 'git clean -fdx', 'curl -X POST', 'chmod -R 777 /',
    'docker run --privileged', 'kubectl delete', 'terraform destroy', 'aws s3 rm', 'gcloud projects delete', 'sudo', 'doas', 'npm publish',
    'yarn publish', 'cargo publish', 'gem push', 'ssh *', 'scp *', 'dd', 'mkfs', 'shutdown', 'reboot', 'kill -9', 'pkill', 'crontab -r'];
  for (const pattern of dangerous) rules.push({ id: id('deny'), decision: 'deny', match: `{ command: [${quote(pattern)}] }` });
  for (const program of programs.slice(0, 26)) {
    rules.push({ id: id('ask'), decision: 'ask', match: `{ command: [${quote(`${program} --unsafe-${n}`)}] }` });
  }
  rules.push({ id: id('ask-glob'), decision: 'ask', match: '{ command: ["*-deploy *", "np* run release*"] }' });
  // Path rules.
  const secretPaths = ['**/.env', '**/.env.*', '~/.ssh/**', '**/*.pem', '**/id_rsa*', '~/.aws/**', '/etc/**', '**/secrets/**'];
  for (const path of secretPaths) rules.push({ id: id('secret'), decision: 'deny', match: `{ paths: [${quote(path)}] }` });
  for (let i = 0; i < 8; i++) rules.push({ id: id('ws-write'), decision: 'allow', match: `{ kind: [edit, execute], access: [write], paths: ["\${workspace}/dir${i}/**"] }` });
  rules.push({ id: id('ws-read'), decision: 'allow', match: '{ kind: [read, search], paths: ["${workspace}/**"] }' });
  rules.push({ id: id('ws-out'), decision: 'allow', match: '{ kind: execute, access: [write], paths: ["${workspace}/*.txt"] }' });
  rules.push({ id: id('tmp'), decision: 'allow', match: '{ paths: ["/tmp/**"] }' });
  // A few non-command, non-path rules.
  rules.push({ id: id('fetch'), decision: 'allow', match: '{ kind: fetch, url: ["https://docs.*", "*.example.com"] }' });
  rules.push({ id: id('think'), decision: 'allow', match: '{ kind: think }' });
  rules.push({ id: id('title'), decision: 'ask', match: '{ title: ["/danger/i"] }' });
  while (rules.length < 200) rules.push({ id: id('filler'), decision: 'allow', match: `{ kind: execute, command: [${quote(`tool${n} run`)}] }` });
  const yaml = ['version: 1', 'default: ask', 'rules:'];
  for (const rule of rules.slice(0, 200)) yaml.push(`  - id: ${rule.id}`, `    decision: ${rule.decision}`, `    match: ${rule.match}`);
  return { text: `${yaml.join('\n')}\n`, count: Math.min(rules.length, 200) };
}

export const CASES = [
  { name: 'plain command', target: 10, line: (i) => `npm test ${i}`, example: 'npm test' },
  { name: 'compound, plain words', target: 15, line: (i) => `npm test && git status | head -n ${i}`, example: 'npm test && git status | head' },
  { name: 'needs the full parser', target: 60, line: (i) => `cd /w && echo $(date) > out${i}.txt`, example: 'cd /w && echo $(date) > out.txt' },
  { name: 'repeated line', target: 5, line: () => 'npm test && git status | head', example: 'npm test && git status | head' },
];

const CYCLE = 50_000; // distinct numbers, far above the analysis cache size (1000)

/** The decision the rows measure: one execute call of `line`, facts extracted and evaluated. */
export async function benchDecider() {
  const { text, count } = generatePolicy();
  const loaded = loadPolicyText(text, 'bench-policy.yaml', 'user');
  if (!loaded.policy) {
    console.error(loaded.diagnostics);
    process.exit(1);
  }
  const policy = { files: [loaded.policy] };
  const shell = await createShellAnalyzer();
  const context = { workspace: WORKSPACE, home: HOME, agent: 'bench', shell, canonicalize: lexicalOnly, fileExists: () => false };
  const decide = (line) => {
    const facts = extractFacts({ toolCallId: 't', kind: 'execute', title: line, rawInput: { command: line } }, context);
    return evaluate(policy, facts, { home: HOME });
  };
  return { decide, count, policy, context, shell, home: HOME };
}

async function main() {
  const json = process.argv.includes('--json');
  const { decide, count } = await benchDecider();

  // Cases are measured in interleaved rounds, so a burst of load from elsewhere on the machine
  // spreads over every case instead of spoiling one; each row is the median over all its batches.
  const batch = 50;
  const rounds = 8;
  const batchesPerRound = 60;
  let offset = 0;
  const samples = CASES.map(() => []);
  let sink = 0;
  for (const c of CASES) for (let i = 0; i < 5_000; i++) decide(c.line(offset++ % CYCLE)); // JIT warm-up
  for (let round = 0; round < rounds; round++) {
    CASES.forEach((c, index) => {
      for (let b = 0; b < batchesPerRound; b++) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < batch; i++) sink += decide(c.line(offset++ % CYCLE)).items.length;
        samples[index].push(Number(process.hrtime.bigint() - start) / 1000 / batch);
      }
    });
  }
  if (sink === 0) throw new Error('no items');
  const rows = CASES.map((c, index) => {
    const sorted = samples[index].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    const p90 = sorted[Math.floor(sorted.length * 0.9)];
    return {
      case: c.name, line: c.line('N'), decision: decide(c.example).decision,
      medianUs: Number(median.toFixed(2)), p90Us: Number(p90.toFixed(2)), targetUs: c.target, pass: median <= c.target,
    };
  });

  if (json) {
    console.log(JSON.stringify({ rules: count, rows }, null, 2));
    return;
  }
  console.log(`shell analysis + facts + evaluate, ${count}-rule policy, node ${process.version}`);
  const header = ['case', 'line measured', 'decision', 'median µs', 'p90 µs', 'target µs', 'result'];
  const table = rows.map((r) => [r.case, r.line, r.decision, r.medianUs.toFixed(2), r.p90Us.toFixed(2), `≤ ${r.targetUs}`, r.pass ? 'PASS' : 'MISS']);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const format = (row) => row.map((cell, i) => (i >= 3 && i <= 5 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ');
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table) console.log(format(row));
  if (rows.some((r) => !r.pass)) process.exitCode = 1;
}

// Run as a script (not when imported by bench/profile-row.mjs).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
