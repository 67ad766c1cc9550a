import type { ChildProcess } from 'node:child_process';
import type { DecisionDeps } from '../broker/broker.js';
import type { Engine } from '../engine/engine.js';
import type { GrantStore } from '../grants/store.js';
import { trickOn } from './tricks.js';

/** With an agent spawned early, heavy loading waits for its first output, or this long at most. */
const AGENT_BOOT_WAIT_MS = 1000;
/**
 * Both sides silent this long: the broker has nothing else to do. Longer than a client's turn-around
 * (an answer read, the next line sent: the cold session's `session/new` → prompt), shorter than a
 * human's or a model's pause. Checked every QUIET_CHECK_MS, which is also how soon a held request
 * is noticed.
 */
const QUIET_MS = 50;
const QUIET_CHECK_MS = 2;
/** What the broker is busy with: chunks either side has sent, and requests held for the engine. */
export interface Activity {
  traffic(): number;
  held(): number;
}

/**
 * What the heavy loading (the shell parser, the layered policy, the grants store) waits for, and
 * yields to between its steps. First, with an agent spawned early, its first output (or
 * AGENT_BOOT_WAIT_MS), so that loading does not compete with the agent's own start-up for the CPU.
 * Then, at every step, `quiet()`: the relay has no lines to handle — or a request is held for the
 * engine, which makes loading the real work.
 */
export interface LoadingGate {
  readonly opened: Promise<void>;
  /** Open the gate when `child` first writes (or the wait is over); counted from now. */
  openWhenSpoken(child: ChildProcess): void;
  /** Resolves once the broker has nothing else to do (see above). */
  quiet(): Promise<void>;
}

export function loadingGate(earlyAgent: boolean, activity: Activity): LoadingGate {
  const quiet = trickOn('yield') ? () => whenQuiet(activity) : () => Promise.resolve();
  if (!earlyAgent || !trickOn('gate')) return { opened: quiet(), openWhenSpoken: () => {}, quiet };
  let open: () => void = () => {};
  const spoken = new Promise<void>((resolve) => { open = resolve; });
  return {
    opened: spoken.then(quiet),
    openWhenSpoken(child) {
      child.stdout?.once('data', () => setImmediate(open));
      setTimeout(open, AGENT_BOOT_WAIT_MS).unref();
    },
    quiet,
  };
}

/** Resolves when a request is held for the engine, or once neither side has sent anything for `quietMs`. */
export function whenQuiet(activity: Activity, quietMs = QUIET_MS): Promise<void> {
  if (activity.held() > 0) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = activity.traffic();
    let since = Date.now();
    const check = (): void => {
      const now = Date.now();
      if (activity.held() > 0) return resolve();
      const traffic = activity.traffic();
      if (traffic !== seen) {
        seen = traffic;
        since = now;
      } else if (now - since >= quietMs) {
        return resolve();
      }
      setTimeout(check, QUIET_CHECK_MS);
    };
    setTimeout(check, QUIET_CHECK_MS);
  });
}

/**
 * When the broker may decide: the engine and the grants store loaded (each attached by `attach`),
 * then, with `rehearse`, a short rehearsal of the decision path (rehearsal.ts) so that the first
 * real decisions do not run cold. It only ever uses time nobody else wants: it never starts while
 * a real request is held for it (`held`), and it stops before its next synthetic request once
 * either side sends anything (`traffic` counts their chunks). The broker holds decisions until
 * this resolves.
 */
export function whenDecisionsReady(parts: {
  readonly engine: Promise<Engine>;
  readonly grants: Promise<GrantStore>;
  readonly attach: (engine: Engine, grants: GrantStore) => void;
  readonly rehearse?: { readonly deps: DecisionDeps; readonly traffic: () => number; readonly held: () => number };
}): Promise<unknown> {
  const loaded = Promise.all([parts.engine, parts.grants]).then(([engine, grants]) => parts.attach(engine, grants));
  const rehearse = parts.rehearse;
  if (!rehearse || !trickOn('rehearsal')) return loaded;
  return loaded.then(() => import('./rehearsal.js')).then(({ rehearseDecisions, DEFAULT_REHEARSAL }) => {
    const seen = rehearse.traffic();
    return rehearseDecisions(rehearse.deps, { ...DEFAULT_REHEARSAL, stop: () => rehearse.held() > 0 || rehearse.traffic() !== seen });
  });
}
