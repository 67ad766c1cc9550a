/**
 * The agent's descendants that left its process group (`setsid`: codex-acp runs each command in a
 * session of its own), read from /proc while the agent is alive: once it is gone they are the init
 * process's children and nothing links them to it any more. Linux only; elsewhere nothing is found.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** A process as seen once: its start time tells it apart from a later process given the same pid. */
export interface SeenProcess {
  readonly pid: number;
  readonly startTime: string;
}

interface ProcStat {
  readonly ppid: number;
  readonly pgid: number;
  readonly startTime: string;
  readonly zombie: boolean;
}

const HAS_PROC = process.platform === 'linux';

function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name is in parentheses and may hold spaces or parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), pgid: Number(fields[2]), startTime: fields[19] ?? '', zombie: fields[0] === 'Z' };
  } catch {
    return undefined;
  }
}

/** Live descendants of `root` whose process group is not `root`'s own group (the group id = root's pid). */
export function descendantsOutsideGroup(root: number): SeenProcess[] {
  if (!HAS_PROC) return [];
  const children = new Map<number, { pid: number; stat: ProcStat }[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = readStat(pid);
    if (!stat) continue;
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push({ pid, stat });
    else children.set(stat.ppid, [{ pid, stat }]);
  }
  const found: SeenProcess[] = [];
  const pending = [root];
  const visited = new Set<number>([root]);
  while (pending.length > 0) {
    for (const { pid, stat } of children.get(pending.pop()!) ?? []) {
      if (visited.has(pid)) continue;
      visited.add(pid);
      pending.push(pid);
      if (stat.pgid !== root && !stat.zombie) found.push({ pid, startTime: stat.startTime });
    }
  }
  return found;
}

/** Whether the process seen earlier is still running (same pid and start time, not a zombie). */
export function stillRunning(seen: SeenProcess): boolean {
  const stat = readStat(seen.pid);
  return stat !== undefined && !stat.zombie && stat.startTime === seen.startTime;
}
