import type { BrokerDirs } from '../platform/dirs.js';
import { formatDiagnostic, type Diagnostic } from '../policy/diagnostics.js';
import type { PolicyManager } from '../runtime/policy-manager.js';
import type { ShellAnalyzer } from '../shell/types.js';
import type { Validated } from './pipeline.js';
import type { PolicySource } from './read-policy.js';

// Light on purpose (everything heavy is imported when called): src/startup/start-engine.ts builds
// on it before the agent has booted.

/** Everything a decision needs: the policies in force, and the shell analysis. */
export interface Engine {
  readonly policies: PolicyManager;
  readonly sources: readonly PolicySource[];
  readonly shell: ShellAnalyzer;
  readonly dirs: BrokerDirs;
}

export const INVALID_POLICY_MESSAGE = 'acp-broker: the policy is invalid; nothing was started. Fix the errors above (`acp-broker validate FILE` checks a file).\n';

/** The shell parser (wasm), loaded on demand: the slowest part of starting. */
export function loadShellAnalyzer(): Promise<ShellAnalyzer> {
  return import('../shell/index.js').then((m) => m.createShellAnalyzer());
}

/**
 * The engine over `sources`, its policy loaded through the pipeline (engine/pipeline.ts) once the
 * shell analyzer has. `loaded` says whether the policy is valid; the engine is of no use when not.
 */
export async function assembleEngine(
  sources: readonly PolicySource[], dirs: BrokerDirs, shell: Promise<ShellAnalyzer>, stderr: (s: string) => void,
  options: { watch: boolean; pause?: () => Promise<void>; validated?: Validated },
): Promise<{ engine: Engine; loaded: { ok: boolean; diagnostics: readonly Diagnostic[] } }> {
  // `pause` lets the relay's lines go first between the heavy steps (src/startup/deferred-loading.ts).
  const pause = options.pause ?? (() => Promise.resolve());
  const [analyzer, { PolicyManager }, { TrustFile }] = await Promise.all([
    shell, import('../runtime/policy-manager.js'), import('../runtime/trust-file.js')]);
  await pause();
  // The parser's first call pays one-time setup; pay it now, not on the agent's first request.
  analyzer.analyze('cd /tmp && echo "$(date)" 2>&1 | cat > /dev/null', { cwd: dirs.home, home: dirs.home });
  await pause();
  const policies = new PolicyManager({
    sources, shell: analyzer, trust: new TrustFile(dirs.config), log: (m) => stderr(`${m}\n`), watch: options.watch,
    ...(options.validated ? { validated: options.validated } : {}),
  });
  return { engine: { policies, sources, shell: analyzer, dirs }, loaded: policies.load() };
}

/**
 * Load everything a decision needs. On an invalid policy, print every diagnostic and return
 * undefined. `watch`: reload policy files when they change (a running broker).
 */
export async function loadEngine(
  sources: readonly PolicySource[], dirs: BrokerDirs, stderr: (s: string) => void, options: { watch?: boolean } = {},
): Promise<Engine | undefined> {
  const { engine, loaded } = await assembleEngine(sources, dirs, loadShellAnalyzer(), stderr, { watch: options.watch ?? false });
  for (const d of loaded.diagnostics) stderr(`${formatDiagnostic(d)}\n`);
  if (!loaded.ok) {
    stderr(INVALID_POLICY_MESSAGE);
    return undefined;
  }
  return engine;
}
