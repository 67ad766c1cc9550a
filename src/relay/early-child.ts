import { spawn, type ChildProcess } from 'node:child_process';

// Deliberately light: `run` spawns the agent with this before loading the relay and the policy engine.

/**
 * A child spawned before the relay was loaded, with what happened to it meanwhile: its 'error' and
 * 'exit' events may have fired before anyone listened.
 */
export interface EarlyChild {
  readonly process: ChildProcess;
  readonly spawnError: () => Error | undefined;
  readonly exited: () => { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

/** Spawn now, remembering the events that fire before the relay attaches. */
export function spawnEarly(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): EarlyChild {
  const child = spawn(command, [...args], {
    stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env, ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let error: Error | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once('error', (e) => { error = e; });
  child.once('exit', (code, signal) => { exit = { code, signal }; });
  return { process: child, spawnError: () => error, exited: () => exit };
}

