import { randomBytes } from 'node:crypto';
import { formatDiagnostic, type Diagnostic } from '../policy/diagnostics.js';
import { readPolicyFile } from '../policy/read-file.js';
import type { PolicySource } from '../policy/sources.js';
import { CheckedPolicies } from '../runtime/checked-policies.js';
import type { PolicyManager } from '../runtime/policy-manager.js';
import { brokerDirs, type BrokerDirs } from '../platform/dirs.js';
import type { ShellAnalyzer } from '../shell/types.js';
import type { FileGrantStore } from '../grants/file-store.js';
import type { Grant } from '../grants/grant.js';
import type { ClearFilter, GrantInput, GrantStore } from '../grants/store.js';
import type { AuditSink } from '../audit/sink.js';
import type { DecisionDeps } from '../broker/broker.js';
import { realpathCanonicalizer } from '../platform/canonicalize.js';
import { diskFileExists } from '../platform/file-exists.js';
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
  const [{ PolicyManager }, { TrustFile }] = await Promise.all([import('../runtime/policy-manager.js'), import('../runtime/trust-file.js')]);
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
export async function startEngine(args: ParsedArgs, stderr: (s: string) => void, options: { watch?: boolean; after?: Promise<void> } = {}): Promise<StartingEngine | undefined> {
  const dirs = brokerDirs();
  const sources = policySources(args, dirs);
  const texts: string[] = [];
  const problems: Diagnostic[] = [];
  for (const source of sources) {
    const read = readPolicyFile(source.file);
    if ('diagnostic' in read) problems.push(read.diagnostic);
    else texts.push(read.text);
  }
  // Loaded lazily and in parallel: the wasm parser is the slowest part of starting.
  const loadShell = () => import('../shell/index.js').then((m) => m.createShellAnalyzer());
  const checked = new CheckedPolicies(dirs.state);
  // Content that fully validated before is known good: the agent can start before YAML even loads,
  // and the parser may wait for `after`. Anything else is validated now, parser and all.
  const known = problems.length === 0 && checked.allChecked(texts);
  const shellLoading = known && options.after ? options.after.then(loadShell) : loadShell();
  shellLoading.catch(() => {});
  if (!known) {
    const [{ loadPolicyText }, { checkExamples }] = await Promise.all([import('../policy/load.js'), import('../policy/examples.js')]);
    const parsed = sources.flatMap((source, i) => {
      const text = texts[i];
      if (text === undefined || problems.some((p) => p.location.file === source.file)) return [];
      const loaded = loadPolicyText(text, source.file, source.layer);
      problems.push(...loaded.diagnostics);
      return loaded.policy ? [loaded.policy] : [];
    });
    if (!problems.some((d) => d.severity === 'error')) {
      const shell = await shellLoading;
      for (const policy of parsed) problems.push(...checkExamples(policy, shell));
    }
    for (const d of problems) stderr(`${formatDiagnostic(d)}\n`);
    if (problems.some((d) => d.severity === 'error')) {
      stderr('acp-broker: the policy is invalid; nothing was started. Fix the errors above (`acp-broker validate FILE` checks a file).\n');
      return undefined;
    }
    checked.remember(texts);
  }
  const ready = (async (): Promise<Engine> => {
    // Known-good content: nothing heavy loads before `after` (the agent's boot needs the CPU).
    if (known && options.after) await options.after;
    const [shell, { PolicyManager }, { TrustFile }] = await Promise.all([
      shellLoading, import('../runtime/policy-manager.js'), import('../runtime/trust-file.js')]);
    shell.analyze('cd /tmp && echo "$(date)" 2>&1 | cat > /dev/null', { cwd: dirs.home, home: dirs.home });
    const policies = new PolicyManager({ sources, shell, trust: new TrustFile(dirs.config), log: (m) => stderr(`${m}\n`), watch: options.watch ?? false });
    const loaded = policies.load();
    if (!loaded.ok) {
      // The files changed since they were checked: report, and let decisions fail closed.
      for (const d of loaded.diagnostics) stderr(`${formatDiagnostic(d)}\n`);
      throw new Error('the policy changed while starting and is now invalid');
    }
    return { policies, sources, shell, dirs };
  })();
  ready.catch(() => {});
  return { dirs, ready };
}

/** What a Broker decides with, backed by an engine still loading: called only once decisions are ready. */
export function engineDecisionDeps(engine: () => Engine | undefined, options: {
  readonly dirs: BrokerDirs; readonly grants: GrantStore; readonly fallbackWorkspace: string; readonly nonInteractive: boolean;
}): DecisionDeps {
  return {
    policyFor: (workspace) => engine()!.policies.forWorkspace(workspace),
    shell: { analyze: (line, context) => engine()!.shell.analyze(line, context) },
    home: options.dirs.home, fallbackWorkspace: options.fallbackWorkspace, canonicalize: realpathCanonicalizer(), fileExists: diskFileExists(),
    grants: options.grants, nonInteractive: options.nonInteractive, clock: () => new Date(),
  };
}

/** Decision ids: unique across processes writing the same audit log. */
export function decisionIdGenerator(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

/**
 * How stale the broker's view of grants.json may be. Another process's change (another session's
 * "always", `acp-broker grants revoke`) is seen within this window; deciding does not stat the file
 * every time.
 */
export const GRANTS_FRESH_MS = 100;

/** The user's grants; a broken store is reported (stderr and audit) and the broker goes on without it. */
export async function openGrantStore(dirs: BrokerDirs, audit: AuditSink, stderr: (s: string) => void): Promise<FileGrantStore> {
  const { FileGrantStore } = await import('../grants/file-store.js');
  return new FileGrantStore({
    dir: dirs.config,
    freshForMs: GRANTS_FRESH_MS,
    onProblem: (problem) => {
      const backup = problem.backupPath ? ` It was moved aside to ${problem.backupPath}.` : '';
      stderr(`acp-broker: WARNING: the grants store has a problem (${problem.code}): ${problem.message}.${backup} Continuing without remembered grants.\n`);
      audit.write({ v: 1, event: 'problem', time: new Date().toISOString(), reason: problem.code, message: `${problem.message}${backup}` });
    },
  });
}

/**
 * The grants store, attached once its module has loaded (conf is slow to import). Decisions wait
 * for the engine anyway; until attached it remembers nothing and refuses to record.
 */
export class LateGrantStore implements GrantStore {
  private store: GrantStore | undefined;

  attach(store: GrantStore): void {
    this.store = store;
  }

  list(): Grant[] {
    return this.store?.list() ?? [];
  }

  add(input: GrantInput): Grant {
    if (!this.store) throw new Error('the grants store is not open yet');
    return this.store.add(input);
  }

  revoke(id: string): boolean {
    return this.store?.revoke(id) ?? false;
  }

  clear(filter?: ClearFilter): number {
    return this.store?.clear(filter) ?? 0;
  }

  reload(): void {
    this.store?.reload();
  }
}
