// Helpers for bench/run.mjs: processes, line reading, statistics, the generated 200-rule policy.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');
/** The CLI under test; ACP_BENCH_CLI measures another build (e.g. a checkout of an earlier commit) with the same bench. */
export const CLI = process.env.ACP_BENCH_CLI ?? join(ROOT, 'dist', 'bin', 'acp-broker.js');
export const AGENTS = join(ROOT, 'bench', 'agents');

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Spawn a process and read its stdout as lines. `onLine(text, session)` sees each line (text
 * without '\n'); lines longer than `parseLimit` are only counted. `bytes()` counts every byte read.
 */
export function start(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env }, cwd: options.cwd });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr = (stderr + c.toString()).slice(-4000); });
  child.stdin.on('error', () => {});
  let bytes = 0;
  let rest = '';
  const parseLimit = options.parseLimit ?? 64 * 1024;
  const session = {
    child,
    bytes: () => bytes,
    stderr: () => stderr,
    send: (text) => child.stdin.write(text.endsWith('\n') ? text : `${text}\n`),
    exit: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout.on('data', (chunk) => {
    bytes += chunk.length;
    options.onData?.(chunk, session);
    if (!options.onLine) return;
    // Only short lines are assembled; a long one is skipped to its end.
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (rest.length < parseLimit) rest += chunk.toString('utf8', start, Math.min(chunk.length, start + parseLimit));
        break;
      }
      const text = rest + chunk.toString('utf8', start, Math.min(nl, start + parseLimit));
      rest = '';
      options.onLine(text, session);
      start = nl + 1;
    }
  });
  return session;
}

/** Resolve when `predicate(line)` holds for a line; reject if the process exits first. */
export function lineWaiter() {
  const waiters = [];
  return {
    onLine: (text, session) => {
      for (const w of [...waiters]) {
        if (w.predicate(text)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(text); }
      }
    },
    wait: (session, predicate, what) => new Promise((resolve, reject) => {
      waiters.push({ predicate, resolve });
      void session.exit.then(({ code, signal }) => reject(new Error(`process exited (${code ?? signal}) before ${what}:\n${session.stderr()}`)));
    }),
  };
}

export async function finish(session) {
  session.child.stdin.end();
  const timer = setTimeout(() => session.child.kill('SIGKILL'), 30_000);
  const result = await session.exit;
  clearTimeout(timer);
  return result;
}

/** Peak and current resident set in MB (Linux). */
export function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(field)) ?? '')?.[1] ?? NaN);
  return { peak: kb('VmHWM:') / 1024, rss: kb('VmRSS:') / 1024 };
}

/**
 * A 200-rule policy like a real team's: mostly `command` allow/deny rules over many programs, some
 * path rules, a few others. `echo` and `git status` are allowed (the decision figures use them).
 */
export function generatePolicy() {
  const programs = ['npm', 'node', 'npx', 'yarn', 'pnpm', 'make', 'cargo', 'go', 'python', 'pip', 'pytest', 'ls', 'cat', 'grep', 'rg',
    'find', 'sed', 'awk', 'head', 'tail', 'wc', 'sort', 'uniq', 'diff', 'printf', 'tsc', 'eslint', 'prettier', 'jest', 'vitest',
    'deno', 'bun', 'ruby', 'gem', 'bundle', 'java', 'mvn', 'gradle', 'dotnet', 'swift', 'rustc', 'clang', 'gcc', 'cmake', 'ninja',
    'docker', 'kubectl', 'helm', 'terraform', 'ansible', 'aws', 'gcloud', 'az', 'psql', 'mysql', 'redis-cli', 'sqlite3', 'jq', 'yq', 'zip'];
  const rules = [];
  const rule = (decision, match, reason) => rules.push({ id: `r${rules.length + 1}`, decision, match, reason });
  const q = JSON.stringify;
  rule('allow', `{ kind: execute, command: ["echo", "git status", "git diff", "git log"] }`);
  for (const p of programs) {
    rule('allow', `{ kind: execute, command: [${q(`${p} test`)}, ${q(`${p} --version`)}] }`);
    rule('allow', `{ kind: execute, command: [${q(`${p} run lint`)}, ${q(`${p} list`)}] }`);
  }
  const dangerous = ['rm -rf /', 'rm -rf ~', 'git push --force', 'git reset --hard', 'git clean -fdx', 'curl -X POST', 'chmod -R 777 /',
    'docker run --privileged', 'kubectl delete', 'terraform destroy', 'aws s3 rm', 'gcloud projects delete', 'sudo', 'doas', 'npm publish',
    'yarn publish', 'cargo publish', 'gem push', 'ssh', 'scp', 'dd', 'mkfs', 'shutdown', 'reboot', 'kill -9', 'pkill', 'crontab -r',
    'git push origin main', 'helm uninstall', 'psql -c', 'mysql -e', 'redis-cli flushall', 'nc', 'telnet', 'ftp', 'eval', 'base64 -d'];
  for (const d of dangerous) rule('deny', `{ command: [${q(d)}] }`, 'irreversible or exfiltrating');
  const secrets = ['**/.env', '**/.env.*', '~/.ssh/**', '**/*.pem', '**/id_rsa*', '~/.aws/**', '/etc/**', '**/secrets/**', '**/*.key',
    '~/.gnupg/**', '~/.netrc', '**/.npmrc', '~/.docker/config.json', '~/.kube/**'];
  for (const s of secrets) rule('deny', `{ paths: [${q(s)}] }`, 'credentials stay here');
  for (let i = 0; i < 12; i++) rule('allow', `{ kind: [edit], paths: ["\${workspace}/pkg${i}/**"] }`);
  rule('allow', '{ kind: [read, search], paths: ["${workspace}/**"] }');
  rule('allow', '{ kind: execute, access: [write], paths: ["${workspace}/*.txt"] }');
  rule('allow', '{ paths: ["/tmp/**"] }');
  rule('allow', '{ kind: fetch, url: ["https://docs.*", "*.example.com"] }');
  rule('allow', '{ kind: think }');
  rule('ask', '{ title: ["/danger/i"] }');
  rule('ask', '{ command: ["*-deploy *", "np* run release*"] }');
  for (let i = 0; rules.length < 200; i++) rule(i % 3 ? 'allow' : 'ask', `{ kind: execute, command: [${q(`tool${i} run`)}] }`);
  const lines = ['version: 1', 'default: ask', 'non_interactive: deny', 'rules:'];
  for (const r of rules) {
    lines.push(`  - id: ${r.id}`, `    decision: ${r.decision}`, ...(r.reason ? [`    reason: ${r.reason}`] : []), `    match: ${r.match}`);
  }
  return { text: `${lines.join('\n')}\n`, count: rules.length };
}

export function machine() {
  const cpus = Number(readFileSync('/proc/cpuinfo', 'utf8').split('\n').filter((l) => l.startsWith('processor')).length) || undefined;
  const model = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim();
  const memKb = Number(/MemTotal:\s*(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
  return { cpus, model, memoryGb: Math.round(memKb / 1024 / 1024 * 10) / 10, node: process.version, platform: `${process.platform} ${process.arch}` };
}

/**
 * A `data` handler for a server-sent-events response (text chunks): `onFrame(event, data, at)` for
 * every complete frame, `at` read from `clock` when its chunk arrived; `data` is the raw text.
 */
export function sseParser(onFrame, clock) {
  let rest = '';
  return (chunk) => {
    const at = clock();
    rest += chunk;
    let end;
    while ((end = rest.indexOf('\n\n')) >= 0) {
      const block = rest.slice(0, end);
      rest = rest.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event) onFrame(event, data, at);
    }
  };
}

