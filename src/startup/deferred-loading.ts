import type { ChildProcess } from 'node:child_process';
import type { DecisionDeps } from '../broker/broker.js';
import type { Engine } from '../engine/engine.js';
import type { GrantStore } from '../grants/store.js';
import { trickOn } from './tricks.js';

/** With an agent spawned early, heavy loading waits for its first output, or this long at most. */
const AGENT_BOOT_WAIT_MS = 1000;

/**
 * What the heavy loading (the shell parser and layered policy of known-good content, the grants
 * store) waits for. With an agent spawned early: its first output, or AGENT_BOOT_WAIT_MS, so that
 * loading does not compete with the agent's own start-up for the CPU. Without one: nothing.
 */
export interface LoadingGate {
  readonly opened: Promise<void>;
  /** Open the gate when `child` first writes (or the wait is over); counted from now. */
  openWhenSpoken(child: ChildProcess): void;
}

export function loadingGate(earlyAgent: boolean): LoadingGate {
  if (!earlyAgent || !trickOn('gate')) return { opened: Promise.resolve(), openWhenSpoken: () => {} };
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return {
    opened,
    openWhenSpoken(child) {
      child.stdout?.once('data', () => setImmediate(open));
      setTimeout(open, AGENT_BOOT_WAIT_MS).unref();
    },
  };
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
