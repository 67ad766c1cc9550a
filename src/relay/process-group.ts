/**
 * The agent leads a process group of its own (spawnEarly starts it detached), so the broker can
 * end everything it started: an npm launcher that leaves its native agent behind, a shell's
 * children. Windows has no process groups: there the agent process alone is signalled.
 */
import type { ChildProcess } from 'node:child_process';

export const OWN_PROCESS_GROUP = process.platform !== 'win32';

/** Sends `signal` to the agent's whole process group (the agent alone where there are no groups). */
export function signalAgentTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  if (OWN_PROCESS_GROUP) {
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
  if (!OWN_PROCESS_GROUP || pid === undefined || !groupAlive(pid)) return;
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    if (!groupAlive(pid)) return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
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
