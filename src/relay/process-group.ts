/**
 * The agent leads a process group of its own (spawnEarly starts it detached), so the broker can
 * end everything it started: an npm launcher that leaves its native agent behind, a shell's
 * children. Descendants that left the group (codex-acp runs each command with `setsid`) are found
 * in /proc when the agent is signalled, signalled with it, and ended with the group after it exits.
 * Windows has no process groups: there the agent process alone is signalled.
 */
import type { ChildProcess } from 'node:child_process';
import { descendantsOutsideGroup, stillRunning, type SeenProcess } from './process-tree.js';

export const OWN_PROCESS_GROUP = process.platform !== 'win32';

/** By agent pid: descendants outside its group seen when it was signalled, to end with the group. */
const strays = new Map<number, SeenProcess[]>();

function signalStrays(pid: number, signal: NodeJS.Signals): void {
  for (const stray of strays.get(pid) ?? []) {
    if (!stillRunning(stray)) continue;
    try {
      process.kill(stray.pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
}

function straysAlive(pid: number): boolean {
  return (strays.get(pid) ?? []).some(stillRunning);
}

/** Sends `signal` to the agent's whole process group (the agent alone where there are no groups). */
export function signalAgentTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  if (OWN_PROCESS_GROUP) {
    // Seen before the signal: once the agent has exited, nothing links them to it.
    const seen = descendantsOutsideGroup(child.pid);
    const known = strays.get(child.pid) ?? [];
    strays.set(child.pid, [...known, ...seen.filter((p) => !known.some((k) => k.pid === p.pid && k.startTime === p.startTime))]);
    signalStrays(child.pid, signal);
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // The group is gone (or was never made): fall back to the process itself.
    }
  }
  try {
    child.kill(signal);
  } catch {
    // Already gone.
  }
}

/**
 * Once the agent has exited, what it left running in its group gets SIGTERM, and SIGKILL if it is
 * still there after `graceMs`. Resolves when the group is empty or has been killed.
 */
export async function endAgentGroup(pid: number | undefined, graceMs: number): Promise<void> {
  if (!OWN_PROCESS_GROUP || pid === undefined) return;
  const alive = () => groupAlive(pid) || straysAlive(pid);
  try {
    if (!alive()) return;
    signalGroup(pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      if (!alive()) return;
    }
    signalGroup(pid, 'SIGKILL');
  } finally {
    strays.delete(pid);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  signalStrays(pid, signal);
  try {
    process.kill(-pid, signal);
  } catch {
    // Emptied in the meantime.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
