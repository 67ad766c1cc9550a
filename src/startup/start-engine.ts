import { assembleEngine, INVALID_POLICY_MESSAGE, loadShellAnalyzer, type Engine } from '../engine/engine.js';
import type { Validated } from '../engine/pipeline.js';
import { readPolicySources, type PolicySource } from '../engine/read-policy.js';
import type { BrokerDirs } from '../platform/dirs.js';
import { formatDiagnostic } from '../policy/diagnostics.js';
import { CheckedPolicies } from './checked-policies.js';

export interface StartingEngine {
  /** Resolves when decisions can be made; the agent may already be running meanwhile. */
  readonly ready: Promise<Engine>;
}

/**
 * Start the engine so the agent can be spawned as early as possible: the policy's syntax and schema
 * are always checked first (an invalid policy starts nothing). Its examples need the shell parser;
 * unless this exact content passed before, they are checked before returning too. The parser and
 * the layered policy then finish loading in the background while the agent boots.
 */
export async function startEngine(
  sources: readonly PolicySource[], dirs: BrokerDirs, stderr: (s: string) => void,
  options: { watch?: boolean; after?: Promise<void>; pause?: () => Promise<void> } = {},
): Promise<StartingEngine | undefined> {
  const read = readPolicySources(sources);
  const checked = new CheckedPolicies(dirs.state);
  // Content that fully validated before (with the same contents of the files it extends) is known
  // good: the agent can start before YAML even loads, and the parser may wait for `after`.
  // Anything else is validated now, parser and all.
  const known = read.diagnostics.length === 0 && checked.allChecked(read.texts);
  const shellLoading = known && options.after ? options.after.then(loadShellAnalyzer) : loadShellAnalyzer();
  shellLoading.catch(() => {});
  // A first start validates, and the first load then takes that result instead of parsing and
  // checking every example a second time (while no file has changed since).
  let validated: Validated | undefined;
  if (!known) {
    const { validatePolicies } = await import('../engine/pipeline.js');
    const result = await validatePolicies(read.texts, read.diagnostics, () => shellLoading);
    for (const d of result.problems) stderr(`${formatDiagnostic(d)}\n`);
    if (result.problems.some((d) => d.severity === 'error')) {
      stderr(INVALID_POLICY_MESSAGE);
      return undefined;
    }
    checked.remember(result.checked);
    validated = result.loaded;
  }
  const ready = (async (): Promise<Engine> => {
    // Nothing heavy loads before `after` (the agent's boot and the relay's lines need the CPU), and
    // the relay goes first between the steps (`pause`).
    if (options.after) await options.after;
    const { engine, loaded } = await assembleEngine(sources, dirs, shellLoading, stderr, {
      watch: options.watch ?? false, ...(options.pause ? { pause: options.pause } : {}), ...(validated ? { validated } : {}),
    });
    if (!loaded.ok) {
      // The files changed since they were checked: report, and let decisions fail closed.
      for (const d of loaded.diagnostics) stderr(`${formatDiagnostic(d)}\n`);
      throw new Error('the policy changed while starting and is now invalid');
    }
    return engine;
  })();
  ready.catch(() => {});
  return { ready };
}
