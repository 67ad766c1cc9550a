import { setFlagsFromString } from 'node:v8';
import { trickOn } from './tricks.js';

/**
 * V8 optimises a function only after it has run a fixed amount of bytecode, and again waits some
 * hundred calls after each new object shape it sees. Tuned for pages and servers, that leaves a
 * relay's per-message path interpreted for its first few thousand messages, which is a whole
 * session for many users; lower thresholds optimise it sooner (src/startup/README.md). Process-wide,
 * and only for code compiled afterwards, so it runs first in the commands that relay (`run`, `exec`).
 */
const RELAY_JIT_FLAGS = ['--interrupt-budget=16000', '--minimum-invocations-after-ic-update=50'] as const;

export function tuneJitForRelay(): void {
  if (!trickOn('jit')) return;
  for (const flag of RELAY_JIT_FLAGS) setFlagsFromString(flag);
}
