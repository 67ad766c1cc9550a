import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { formatDiagnostic, type Diagnostic } from '../policy/diagnostics.js';
import { checkExamples } from '../policy/examples.js';
import { loadPolicyText } from '../policy/load.js';
import type { PolicySource } from '../policy/sources.js';
import { CheckedPolicies } from '../runtime/checked-policies.js';
import { PolicyManager } from '../runtime/policy-manager.js';
import { TrustFile } from '../runtime/trust-file.js';
import { brokerDirs, packagePath, type BrokerDirs } from '../platform/dirs.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { FileGrantStore } from '../grants/file-store.js';
import type { AuditSink } from '../audit/sink.js';
import type { ParsedArgs } from './args.js';
import { policySources } from './policy-sources.js';

export { policySources, systemManagedPolicy } from './policy-sources.js';

export interface Engine {
  readonly policies: PolicyManager;
  readonly sources: readonly PolicySource[];
  readonly shell: ShellAnalyzer;
  readonly dirs: BrokerDirs;
}

/**
 * Load everything a decision needs. On an invalid policy, print every diagnostic and return
 * undefined. `watch`: reload policy files when they change (a running broker).
 */
export async function loadEngine(args: ParsedArgs, stderr: (s: string) => void, options: { watch?: boolean } = {}): Promise<Engine | undefined> {
  const dirs = brokerDirs();
  const shell = await (await import('../shell/index.js')).createShellAnalyzer();
  // The parser's first call pays one-time setup; pay it now, not on the agent's first request.
  shell.analyze('cd /tmp && echo "$(date)" 2>&1 | cat > /dev/null', { cwd: dirs.home, home: dirs.home });
  const sources = policySources(args, dirs);
  const policies = new PolicyManager({ sources, shell, trust: new TrustFile(dirs.config), log: (m) => stderr(`${m}\n`), watch: options.watch ?? false });
  const loaded = policies.load();
  for (const d of loaded.diagnostics) stderr(`${formatDiagnostic(d)}\n`);
  if (!loaded.ok) {
    stderr('acp-broker: the policy is invalid; nothing was started. Fix the errors above (`acp-broker validate FILE` checks a file).\n');
    return undefined;
  }
  return { policies, sources, shell, dirs };
}

export interface StartingEngine {
  readonly dirs: BrokerDirs;
  /** Resolves when decisions can be made; the agent may already be running meanwhile. */
  readonly ready: Promise<Engine>;
}

/**
 * Start the engine so the agent can be spawned as early as possible: the policy's syntax and schema
 * are always checked first (an invalid policy starts nothing). Its examples need the shell parser;
 * unless this exact content passed before, they are checked before returning too. The parser and
 * the layered policy then finish loading in the background while the agent boots.
 */
export async function startEngine(args: ParsedArgs, stderr: (s: string) => void, options: { watch?: boolean } = {}): Promise<StartingEngine | undefined> {
  const dirs = brokerDirs();
  const sources = policySources(args, dirs);
  const texts: string[] = [];
  const problems: Diagnostic[] = [];
  const parsed = [];
  for (const source of sources) {
    let text: string;
    try {
      text = readFileSync(source.file, 'utf8');
    } catch (error) {
      problems.push({ severity: 'error', code: 'read_failed', location: { file: source.file, line: 1, column: 1 }, message: `cannot read policy file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, hint: 'check the path given to --policy' });
      continue;
    }
    texts.push(text);
    const loaded = loadPolicyText(text, source.file, source.layer);
    problems.push(...loaded.diagnostics);
    if (loaded.policy) parsed.push(loaded.policy);
  }
  // Loaded lazily: the wasm parser is the slowest part of starting, and need not delay the agent.
  const shellLoading = import('../shell/index.js').then((m) => m.createShellAnalyzer());
  shellLoading.catch(() => {});
  const checked = new CheckedPolicies(dirs.state);
  if (!problems.some((d) => d.severity === 'error') && !checked.allChecked(texts)) {
    const shell = await shellLoading;
    for (const policy of parsed) problems.push(...checkExamples(policy, shell));
  }
  for (const d of problems) stderr(`${formatDiagnostic(d)}\n`);
  if (problems.some((d) => d.severity === 'error')) {
    stderr('acp-broker: the policy is invalid; nothing was started. Fix the errors above (`acp-broker validate FILE` checks a file).\n');
    return undefined;
  }
  checked.remember(texts);
  const ready = shellLoading.then((shell) => {
    shell.analyze('cd /tmp && echo "$(date)" 2>&1 | cat > /dev/null', { cwd: dirs.home, home: dirs.home });
    const policies = new PolicyManager({ sources, shell, trust: new TrustFile(dirs.config), log: (m) => stderr(`${m}\n`), watch: options.watch ?? false });
    const loaded = policies.load();
    if (!loaded.ok) {
      // The files changed between the first check and now: report, and let decisions fail closed.
      for (const d of loaded.diagnostics) stderr(`${formatDiagnostic(d)}\n`);
      throw new Error('the policy changed while starting and is now invalid');
    }
    return { policies, sources, shell, dirs };
  });
  return { dirs, ready };
}

/** Decision ids: unique across processes writing the same audit log. */
export function decisionIdGenerator(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

/** The user's grants; a broken store is reported (stderr and audit) and the broker goes on without it. */
export function openGrantStore(dirs: BrokerDirs, audit: AuditSink, stderr: (s: string) => void): FileGrantStore {
  return new FileGrantStore({
    dir: dirs.config,
    onProblem: (problem) => {
      const backup = problem.backupPath ? ` It was moved aside to ${problem.backupPath}.` : '';
      stderr(`acp-broker: WARNING: the grants store has a problem (${problem.code}): ${problem.message}.${backup} Continuing without remembered grants.\n`);
      audit.write({ v: 1, event: 'problem', time: new Date().toISOString(), reason: problem.code, message: `${problem.message}${backup}` });
    },
  });
}
