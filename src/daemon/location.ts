/**
 * Where the daemon lives: `<state dir>/daemon/` (0700) holds the socket (0600) and `daemon.json`,
 * the running daemon's pid, socket and inbox address. On Windows the socket is a named pipe
 * named after the user (pipes have no directory; the pipe's default ACL admits its creator).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { brokerDirs } from '../platform/dirs.js';
import { mkdirParents } from '../platform/mkdir.js';
import { PROTOCOL_VERSION } from './protocol.js';

export interface DaemonLocation {
  readonly dir: string;
  readonly socket: string;
  readonly infoFile: string;
}

export function daemonLocation(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): DaemonLocation {
  const dir = join(brokerDirs(env).state, 'daemon');
  const socket = platform === 'win32'
    ? `\\\\.\\pipe\\acp-broker-approvals-${createHash('sha256').update(`${userInfo().username}\0${dir}`).digest('hex').slice(0, 16)}`
    : join(dir, 'approvals.sock');
  return { dir, socket, infoFile: join(dir, 'daemon.json') };
}

/** The directory, created if missing and made private to the user whatever it was. */
export function preparePrivateDir(dir: string): void {
  mkdirParents(join(dir, '..'));
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (process.platform !== 'win32') chmodSync(dir, 0o700);
}

export interface DaemonInfo {
  readonly protocol: number;
  readonly pid: number;
  readonly socket: string;
  /** The inbox's address with its token (the file is private to the user), or null without an inbox. */
  readonly inbox: string | null;
  readonly startedAt: string;
}

export function writeInfo(location: DaemonLocation, info: DaemonInfo): void {
  const temporary = `${location.infoFile}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(info, undefined, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, location.infoFile);
}

/** The info file, if there is one that parses; it may describe a daemon that has died. */
export function readInfo(location: DaemonLocation): DaemonInfo | undefined {
  try {
    const value = JSON.parse(readFileSync(location.infoFile, 'utf8')) as Partial<DaemonInfo>;
    if (typeof value.pid !== 'number' || typeof value.socket !== 'string') return undefined;
    return {
      protocol: typeof value.protocol === 'number' ? value.protocol : PROTOCOL_VERSION,
      pid: value.pid,
      socket: value.socket,
      inbox: typeof value.inbox === 'string' ? value.inbox : null,
      startedAt: typeof value.startedAt === 'string' ? value.startedAt : '',
    };
  } catch {
    return undefined;
  }
}

/** Removes the info file only if it still describes this process (a newer daemon may have replaced it). */
export function removeInfo(location: DaemonLocation, pid: number): void {
  if (readInfo(location)?.pid === pid) rmSync(location.infoFile, { force: true });
}
