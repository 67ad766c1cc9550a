import { setFlagsFromString } from 'node:v8';
import { trickOn } from './tricks.js';

/**
 * V8's optimising compiler (TurboFan) pays for the decision path and costs the relay. In a burst of
 * agent output the relay's code is mostly native calls (`indexOf`, `write`); compiling it and Node's
 * stream internals on V8's helper threads takes more CPU, on the two cores the agent and the editor
 * share, than the compiled code saves before the burst is over. A decision is the opposite: deep
 * JavaScript, many times faster compiled. So in `run` the compiler is on only while decisions are
 * made: each decision opens it, and it closes once none has been made for `holdMs`. Closing it
 * keeps what is already compiled; V8 goes on counting how hot each function is, so the next
 * decisions compile what got hot meanwhile (bench/RESULTS.md, "Issue 14, sixth session").
 */
export interface OptimizerGate {
  /** A decision is being made (a real one or the rehearsal's): the compiler is on until `holdMs` after the last. */
  decisionMade(): void;
}

export interface GateEffects {
  /** Turn the optimising compiler on or off, process-wide. */
  readonly setCompiler: (on: boolean) => void;
  readonly now: () => number;
  /** Run `check` once after `ms`, without keeping the process alive. */
  readonly after: (ms: number, check: () => void) => void;
}

const DEFAULT_HOLD_MS = 50;

/** The gate's logic over injected effects: closed at first, opened by decisions, closed after a quiet `holdMs`. */
export function optimizerGateWith(effects: GateEffects, holdMs = DEFAULT_HOLD_MS): OptimizerGate {
  let open = false;
  let lastDecision = 0;
  const check = (): void => {
    const quietFor = effects.now() - lastDecision;
    if (quietFor < holdMs) {
      effects.after(holdMs - quietFor, check);
      return;
    }
    open = false;
    effects.setCompiler(false);
  };
  effects.setCompiler(false);
  return {
    decisionMade() {
      lastDecision = effects.now();
      if (open) return;
      open = true;
      effects.setCompiler(true);
      effects.after(holdMs, check);
    },
  };
}

/** Measured on V8 11 (Node 20) only: elsewhere the compiler stays on, as V8 has it. */
const GATED_V8_MAJORS: ReadonlySet<number> = new Set([11]);

/** For `run`: the gate on this process's V8, or none where it is not measured or left out. */
export function optimizerGate(): OptimizerGate | undefined {
  if (!trickOn('optimizer-gate') || !GATED_V8_MAJORS.has(Number(process.versions.v8.split('.')[0]))) return undefined;
  return optimizerGateWith({
    setCompiler: (on) => setFlagsFromString(on ? '--turbofan' : '--no-turbofan'),
    now: () => performance.now(),
    after: (ms, check) => setTimeout(check, ms).unref(),
  });
}
