/**
 * `--max-duration`: at the deadline the turn is cancelled (`session/cancel`); if the agent has not
 * ended the turn within the grace period it is stopped — SIGTERM to its process group, SIGKILL a
 * second later. Either way the run has timed out.
 */

/** How long a cancelled turn may take to end before the agent is stopped (documented in the README). */
export const CANCEL_GRACE_MS = 5000;
const KILL_AFTER_TERM_MS = 1000;

export interface Deadline {
  /** Resolves when the deadline passed (never, without one). */
  readonly reached: Promise<void>;
  readonly timedOut: () => boolean;
  /** The turn ended (or the run is over): no cancel, no stop any more. */
  readonly disarm: () => void;
}

export function startDeadline(options: {
  readonly maxDurationMs: number | undefined;
  readonly graceMs?: number;
  readonly cancel: () => void;
  readonly signalAgent: (signal: NodeJS.Signals) => void;
}): Deadline {
  let timedOut = false;
  const timers: NodeJS.Timeout[] = [];
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => { reach = resolve; });
  if (options.maxDurationMs !== undefined) {
    timers.push(setTimeout(() => {
      timedOut = true;
      reach();
      options.cancel();
      timers.push(setTimeout(() => {
        options.signalAgent('SIGTERM');
        timers.push(setTimeout(() => options.signalAgent('SIGKILL'), KILL_AFTER_TERM_MS));
      }, options.graceMs ?? CANCEL_GRACE_MS));
    }, options.maxDurationMs));
  }
  return {
    reached, timedOut: () => timedOut,
    disarm: () => { for (const timer of timers) clearTimeout(timer); timers.length = 0; },
  };
}
