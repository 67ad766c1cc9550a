/**
 * The repository git would use from a directory, found read-only as git discovers it: up from the
 * directory, the first `.git` (a directory, or a file `gitdir: PATH` as worktrees and submodules
 * have) or a directory that is itself a git directory (bare). A worktree's git directory shares
 * its objects and most refs through `commondir`. What makes objects or refs resolve other than
 * from these files — reftable, SHA-256, replace refs — is unknown. Alternates (`clone --shared`) add
 * object directories; promisor packs (partial clones fetch what is missing) make an absent object
 * unknown rather than absent.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Unknown } from './git-object-store.js';

export interface Repository {
  /** The worktree's own git directory: HEAD, per-worktree refs. */
  readonly gitDir: string;
  /** Shared: objects, refs, packed-refs, config. */
  readonly commonDir: string;
  /** The object directory, then its alternates (theirs too), as git searches them. */
  readonly objectDirectories: readonly string[];
  /** Objects may exist that are in no object directory (a partial clone's promisor remote). */
  readonly incomplete: boolean;
  /** The worktree's top directory (where `.git` was found); undefined for a bare repository. */
  readonly worktree: string | undefined;
  /** History may end early or differ from its objects' parents (a shallow clone, grafts). */
  readonly rewrittenHistory: boolean;
}

export function findRepository(directory: string): Repository | Unknown | undefined {
  for (let at = resolve(directory); ; at = dirname(at)) {
    const dotGit = `${at}/.git`;
    const kind = entryKind(dotGit);
    if (kind === 'directory' && isGitDirectory(dotGit)) return repositoryAt(dotGit, at);
    if (kind === 'file') {
      const text = readText(dotGit);
      const match = text === undefined ? null : /^gitdir: (.+?)\r?\n?$/.exec(text);
      if (!match) return { unknown: `${dotGit} is not a gitdir file that can be read` };
      return repositoryAt(resolve(at, match[1]!), at);
    }
    if (kind === 'unknown') return { unknown: `${dotGit} cannot be read` };
    if (isGitDirectory(at)) return repositoryAt(at, undefined);
    if (at === '/') return undefined;
  }
}

function repositoryAt(gitDir: string, worktree: string | undefined): Repository | Unknown {
  if (!isGitDirectory(gitDir)) return { unknown: `${gitDir} is not a git directory that can be read` };
  const commonDir = commonDirOf(gitDir);
  const config = readText(`${commonDir}/config`) ?? '';
  // Extensions change how objects and refs are stored: only the files read here are understood.
  if (/objectformat|refstorage/i.test(config) || existsSync(`${commonDir}/reftable`)) return { unknown: `${commonDir} stores its objects or refs in a format not read here` };
  if (hasReplaceRefs(commonDir)) return { unknown: `${commonDir} has replace refs: git may show another object than the one named` };
  const objectDirectories = withAlternates(`${commonDir}/objects`);
  if ('unknown' in objectDirectories) return objectDirectories;
  const incomplete = /partialclone|promisor/i.test(config) || objectDirectories.some(hasPromisorPack);
  const rewrittenHistory = entryKind(`${commonDir}/shallow`) !== 'missing' || entryKind(`${commonDir}/info/grafts`) !== 'missing';
  return { gitDir, commonDir, objectDirectories, incomplete, worktree, rewrittenHistory };
}

/** Alternates are followed this deep (git's own limit is 5). */
const MAX_ALTERNATE_DEPTH = 5;

/** An object directory and the alternates it names, depth first as git reads them. */
function withAlternates(objects: string): string[] | Unknown {
  const found: string[] = [];
  const visit = (directory: string, depth: number): Unknown | undefined => {
    if (found.includes(directory)) return undefined;
    found.push(directory);
    const text = readText(`${directory}/info/alternates`);
    if (text === undefined) return undefined;
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      // A quoted line is C-quoted, an environment-named one is not in this file: neither read here.
      if (line.startsWith('"') || depth >= MAX_ALTERNATE_DEPTH) return { unknown: `${directory}/info/alternates names object directories not read here` };
      const problem = visit(resolve(directory, line.trim()), depth + 1);
      if (problem) return problem;
    }
    return undefined;
  };
  return visit(objects, 0) ?? found;
}

/** What git checks of a git directory: HEAD, and objects/ and refs/ in the common directory (a worktree's are its main repository's). */
function isGitDirectory(path: string): boolean {
  const common = commonDirOf(path);
  return entryKind(`${path}/HEAD`) === 'file' && entryKind(`${common}/objects`) === 'directory' && entryKind(`${common}/refs`) === 'directory';
}

function commonDirOf(gitDir: string): string {
  const common = readText(`${gitDir}/commondir`);
  return common === undefined ? gitDir : resolve(gitDir, common.trim());
}

function hasReplaceRefs(commonDir: string): boolean {
  try {
    if (readdirSync(`${commonDir}/refs/replace`).length > 0) return true;
  } catch {
    // No refs/replace directory: none loose.
  }
  return (readText(`${commonDir}/packed-refs`) ?? '').includes(' refs/replace/');
}

function hasPromisorPack(objects: string): boolean {
  try {
    return readdirSync(`${objects}/pack`).some((name) => name.endsWith('.promisor'));
  } catch {
    return false;
  }
}

function entryKind(path: string): 'directory' | 'file' | 'missing' | 'unknown' {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return 'missing';
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'unknown';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unknown';
  }
}

/** A small text file's content; undefined when it cannot be read. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
