import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { formatDiagnostic } from '../policy/diagnostics.js';
import type { PolicySource } from '../policy/sources.js';
import { PolicyManager } from '../runtime/policy-manager.js';
import { TrustFile } from '../runtime/trust-file.js';
import { brokerDirs, packagePath, type BrokerDirs } from '../platform/dirs.js';
import { createShellAnalyzer } from '../shell/index.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { FileGrantStore } from '../grants/file-store.js';
import type { AuditSink } from '../audit/sink.js';
import type { ParsedArgs } from './args.js';

/** Where an administrator installs the managed layer on each platform. */
export function systemManagedPolicy(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  switch (platform) {
    case 'darwin': return '/Library/Application Support/acp-broker/policy.yaml';
    case 'win32': return join(env.ProgramData ?? 'C:\\ProgramData', 'acp-broker', 'policy.yaml');
    default: return '/etc/acp-broker/policy.yaml';
  }
}

export interface Engine {
  readonly policies: PolicyManager;
  readonly sources: readonly PolicySource[];
  readonly shell: ShellAnalyzer;
  readonly dirs: BrokerDirs;
}

/** Which policy files are in force, by layer. */
export function policySources(args: ParsedArgs, dirs: BrokerDirs, cwd = process.cwd()): PolicySource[] {
  const sources: PolicySource[] = [];
  for (const file of args.options.get('--managed-policy') ?? []) sources.push({ file: resolve(cwd, file), layer: 'managed' });
  const system = systemManagedPolicy();
  if (existsSync(system)) sources.push({ file: system, layer: 'managed' });
  const user = args.options.get('--policy');
  if (user && user.length > 0) {
    for (const file of user) sources.push({ file: resolve(cwd, file), layer: 'user' });
  } else {
    const userFile = join(dirs.config, 'policy.yaml');
    sources.push({ file: existsSync(userFile) ? userFile : packagePath('policies', 'default.yaml'), layer: 'user' });
  }
  return sources;
}

/**
 * Load everything a decision needs. On an invalid policy, print every diagnostic and return
 * undefined. `watch`: reload policy files when they change (a running broker).
 */
export async function loadEngine(args: ParsedArgs, stderr: (s: string) => void, options: { watch?: boolean } = {}): Promise<Engine | undefined> {
  const dirs = brokerDirs();
  const shell = await createShellAnalyzer();
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
