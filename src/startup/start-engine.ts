import { assembleEngine, INVALID_POLICY_MESSAGE, loadShellAnalyzer, type Engine } from '../engine/engine.js';
import type { CheckedSource, Validated } from '../engine/pipeline.js';
import { readPolicySources, type PolicySource, type PolicyText } from '../engine/read-policy.js';
import type { BrokerDirs } from '../platform/dirs.js';
import { formatDiagnostic, type Diagnostic } from '../policy/diagnostics.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { buildId } from './build-id.js';
import { CheckedPolicies } from './checked-policies.js';

export interface StartingEngine {
  /** Resolves when decisions can be made; the agent may already be running meanwhile. */
  readonly ready: Promise<Engine>;
}

/**
 * Start the engine so the agent can be spawned as early as possible: the policy's syntax and schema
 * are always checked first (an invalid policy starts nothing). Its examples need the shell parser;
 * unless this exact content passed before, they are checked before returning too. The parser and
 * the layered policy then finish loading in the background while the agent boots — content that
 * passed before restored as this build loaded it (policy-snapshots.ts), without parsing.
 */
export async function startEngine(
  sources: readonly PolicySource[], dirs: BrokerDirs, stderr: (s: string) => void,
  options: { watch?: boolean; after?: Promise<void>; pause?: () => Promise<void> } = {},
): Promise<StartingEngine | undefined> {
  const read = readPolicySources(sources);
  const checked = new CheckedPolicies(dirs.state);
  const build = buildId();
  // Content that fully validated before (with the same contents of the files it extends) is known
  // good: the agent can start before YAML even loads, and the parser may wait for `after`.
  // Anything else is validated now, parser and all.
  const known = read.diagnostics.length === 0 ? checked.entriesFor(read.texts) : undefined;
  const shellLoading = known && options.after ? options.after.then(loadShellAnalyzer) : loadShellAnalyzer();
  shellLoading.catch(() => {});
  // A first start validates, and the first load then takes that result instead of parsing and
  // checking every example a second time (while no file has changed since).
  let validated: Validated | undefined;
  // Validated here: recorded with what they load to (10–30 ms for 200 rules) a while after the
  // engine is ready: neither the agent's spawn nor the first decisions wait for it.
  let toRecord: readonly CheckedSource[] | undefined;
  if (!known) {
    const result = await validate(read.texts, read.diagnostics, () => shellLoading, stderr);
    if (!result) return undefined;
    checked.remember(result.checked.map(({ file, text, extended }) => ({ file, text, extended })));
    ({ validated, checked: toRecord } = result);
  }
  const ready = (async (): Promise<Engine> => {
    // Nothing heavy loads before `after` (the agent's boot and the relay's lines need the CPU), and
    // the relay goes first between the steps (`pause`).
    if (options.after) await options.after;
    if (known) {
      // Known good: restored as this build loaded it before (no YAML, no examples); else, in a
      // bundled build, validated once more, to record what it loads to for the next start.
      const { restorable, restoreValidated } = await import('./policy-snapshots.js');
      validated = restoreValidated(read.texts, known, build);
      if (!validated && build !== undefined && restorable(read.texts)) {
        await options.pause?.();
        ({ validated, checked: toRecord } = await validate(read.texts, [], () => shellLoading, () => {}) ?? {});
      }
    }
    const { engine, loaded } = await assembleEngine(sources, dirs, shellLoading, stderr, {
      watch: options.watch ?? false, ...(options.pause ? { pause: options.pause } : {}), ...(validated ? { validated } : {}),
    });
    if (!loaded.ok) {
      // The files changed since they were checked: report, and let decisions fail closed.
      for (const d of loaded.diagnostics) stderr(`${formatDiagnostic(d)}\n`);
      throw new Error('the policy changed while starting and is now invalid');
    }
    if (toRecord && build !== undefined) void recordLoaded(checked, toRecord, build, options.pause);
    return engine;
  })();
  ready.catch(() => {});
  return { ready };
}

/**
 * Every text parsed and its examples checked; every problem printed. The validation and what it
 * checked, or undefined when there is an error.
 */
async function validate(
  texts: readonly PolicyText[], readProblems: readonly Diagnostic[], shell: () => Promise<ShellAnalyzer>, stderr: (s: string) => void,
): Promise<{ validated: Validated; checked: readonly CheckedSource[] } | undefined> {
  const { validatePolicies } = await import('../engine/pipeline.js');
  const result = await validatePolicies(texts, readProblems, shell);
  for (const d of result.problems) stderr(`${formatDiagnostic(d)}\n`);
  if (result.problems.some((d) => d.severity === 'error') || !result.loaded) {
    stderr(INVALID_POLICY_MESSAGE);
    return undefined;
  }
  return { validated: result.loaded, checked: result.checked };
}

/** How long after the engine is ready: past a cold session's first decisions. A shorter run records at its next start. */
const RECORD_DELAY_MS = 1000;

/** Records the validated sources with what they loaded to for `build`, later, once the relay is quiet. */
async function recordLoaded(checked: CheckedPolicies, sources: readonly CheckedSource[], build: string, pause?: () => Promise<void>): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, RECORD_DELAY_MS).unref());
  await pause?.();
  try {
    const { recordsOf } = await import('./policy-snapshots.js');
    checked.remember(recordsOf(sources, build));
  } catch {
    // Only a record: the next start validates again.
  }
}
