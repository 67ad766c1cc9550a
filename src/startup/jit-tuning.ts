import { setFlagsFromString } from 'node:v8';
import { trickOn } from './tricks.js';

/**
 * V8 optimises a function only after it has run a fixed amount of bytecode (V8 11, Node 20) or a
 * fixed number of calls (V8 12 on, Node 22 on), and again waits some hundred calls after each new
 * object shape it sees. Tuned for pages and servers, that leaves a relay's per-message path
 * interpreted for its first few thousand messages, which is a whole session for many users; lower
 * thresholds optimise it sooner (src/startup/README.md).
 *
 * The knobs differ by V8 generation, and V8 prints a flag it does not know as an error, on stdout
 * under Node 22 (the ACP stream): so only V8 generations where a setting was measured to pay get
 * one, and any other runs untuned. V8 13 (Node 24, Maglev on) measured no better with Node 22's
 * setting (bench/RESULTS.md, "Issue 14, sixth session").
 */
const FLAGS_BY_V8_MAJOR: ReadonlyMap<number, readonly string[]> = new Map([
  [11, ['--interrupt-budget=16000', '--minimum-invocations-after-ic-update=50']],
  [12, ['--invocation-count-for-turbofan=500', '--minimum-invocations-after-ic-update=50']],
]);

/** The flags for a V8 version string such as `process.versions.v8` ("11.3.244.8-node.33"). */
function relayJitFlagsFor(v8Version: string): readonly string[] {
  return FLAGS_BY_V8_MAJOR.get(Number(v8Version.split('.')[0])) ?? [];
}

/** Process-wide, and only for code compiled afterwards, so it runs first in the commands that relay (`run`, `exec`). */
export function tuneJitForRelay(): void {
  if (!trickOn('jit')) return;
  for (const flag of relayJitFlagsFor(process.versions.v8)) setFlagsFromString(flag);
}
