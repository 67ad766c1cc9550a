/**
 * The start-up tricks that can be left out, one at a time, so that what each buys can be measured
 * on the same build (`bench/tricks.mjs`). Speed only: leaving any of them out changes no decision
 * and no byte on the wire, which is why an environment variable may switch them.
 *
 *   ACP_BROKER_TRICKS_OFF=rehearsal,jit   (names: early-spawn, gate, yield, jit, optimizer-gate, rehearsal)
 */
export type StartupTrick = 'early-spawn' | 'gate' | 'yield' | 'jit' | 'optimizer-gate' | 'rehearsal';

export function trickOn(trick: StartupTrick, env: NodeJS.ProcessEnv = process.env): boolean {
  const off = env.ACP_BROKER_TRICKS_OFF;
  return !off || !off.split(',').map((s) => s.trim()).includes(trick);
}
