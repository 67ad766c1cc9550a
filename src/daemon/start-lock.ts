/**
 * Daemons starting at the same moment take turns: each checks for a running daemon and replaces a
 * stale socket while holding `start.lock` (O_EXCL, holding the holder's pid), so two starts can
 * never both judge the socket stale and one remove the socket the other has just bound.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const WAIT_MS = 10_000;

export async function withStartLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const path = join(dir, 'start.lock');
  const started = Date.now();
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (holderIsGone(path) || Date.now() - started > WAIT_MS) rmSync(path, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  try {
    return await fn();
  } finally {
    if (readHolder(path) === process.pid) rmSync(path, { force: true });
  }
}

function readHolder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8'));
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The holder has exited (a crash mid-start), or the file holds no pid yet (being written). */
function holderIsGone(path: string): boolean {
  const pid = readHolder(path);
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
