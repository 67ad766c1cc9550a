/**
 * The files in the trees of the commits a `git log -p` / `git show` / `git diff` reaches, read from
 * `.git` as git reads it (git-repository.ts, git-object-stores.ts; git is never run): revisions
 * resolved as the revision resolver does, parent steps followed, ancestors walked (each commit
 * once), each tree read once per place it appears. Blobs are never read. A missing object, a
 * shallow or partial clone, grafts, a submodule, or anything the resolver cannot read is unknown; past the walk
 * limits, 'too-many'. No cache across calls: the history changes.
 */
import { readFileSync, realpathSync } from 'node:fs';
import type { GitHistoryLister } from '../facts/git-history-facts.js';
import type { HistoryRevision } from '../shell/git-history-reads.js';
import { indexPaths } from './git-index.js';
import { commitLinks, treeEntries, type CommitLinks, type TreeEntry } from './git-object-content.js';
import type { Unknown } from './git-object-store.js';
import { ObjectStores } from './git-object-stores.js';
import { findRepository, type Repository } from './git-repository.js';
import { resolveNamedObject } from './git-revision-resolver.js';

/** Commits walked per call. */
const MAX_COMMITS = 5_000;
/** Tree entries read per call (all trees, counted once per tree and place). */
const MAX_TREE_ENTRIES = 200_000;

/** Why a walk stopped: past a limit, or something not read with certainty. */
type Stop = 'too-many' | Unknown;

export function diskGitHistoryLister(): GitHistoryLister {
  return ({ directory, revisions, depth, readsIndex }, limit) => {
    const repository = findRepository(directory);
    // No repository: git fails before it prints anything.
    if (repository === undefined) return [];
    if ('unknown' in repository) return repository;
    if (repository.incomplete) return { unknown: `${repository.commonDir} is a partial clone: its history is not all here` };
    if (repository.rewrittenHistory) return { unknown: `${repository.commonDir} is shallow or has grafts: git's history is not its objects' parents` };
    const store = new ObjectStores(repository.objectDirectories);
    try {
      const walk = new HistoryWalk(repository, store, limit);
      const stop = readsIndex ? walk.index() : undefined;
      return stop ?? walk.run(revisions, depth);
    } finally {
      store.close();
    }
  };
}

class HistoryWalk {
  private readonly root: string;
  private readonly paths = new Set<string>();
  private readonly commits = new Map<string, CommitLinks>();
  private readonly walked = new Set<string>();
  private readonly trees = new Map<string, readonly TreeEntry[]>();
  private readonly placed = new Set<string>();
  private entriesRead = 0;
  /** Whether a revision named an object (then git takes no HEAD by default). */
  private found = false;

  constructor(private readonly repository: Repository, private readonly store: ObjectStores, private readonly limit: number) {
    this.root = repository.worktree ?? repository.gitDir;
  }

  run(revisions: readonly HistoryRevision[], depth: number | undefined): readonly string[] | Stop {
    const named = revisions.map((revision) => resolveNamedObject(this.repository, this.store, revision.name));
    // A word naming no object is a path to git: commits it filters out do not count towards `-N`.
    const bound = named.some((object, r) => object === 'absent' && !revisions[r]!.unlessOthersFound) ? undefined : depth;
    for (let r = 0; r < revisions.length; r++) {
      if (revisions[r]!.unlessOthersFound && this.found) continue;
      const stop = this.revision(revisions[r]!, named[r]!, bound);
      if (stop !== undefined) return stop;
    }
    // The names are matched as they are (facts/git-history-facts.ts): their directory must be canonical.
    let root: string;
    try {
      root = realpathSync.native(this.root);
    } catch {
      return { unknown: `${this.root} cannot be resolved to a canonical directory` };
    }
    return [...this.paths].map((path) => `${root}/${path}`);
  }

  private revision(revision: HistoryRevision, named: ReturnType<typeof resolveNamedObject>, depth: number | undefined): Stop | undefined {
    // Absent: git fails, or takes the word as a path. A blob: no patch (git-object-facts.ts decides `show BLOB`).
    if (named === 'absent') return undefined;
    if ('unknown' in named) return named;
    this.found = true;
    if (named.type === 'blob') return undefined;
    if (named.type === 'tree') return this.tree(named.id);
    let id = named.id;
    for (const parent of revision.steps ?? []) {
      const links = this.commit(id);
      if ('unknown' in links) return links;
      const next = links.parents[parent - 1];
      // No such parent: git fails.
      if (next === undefined) return undefined;
      id = next;
    }
    // `X^{/re}` (no steps known) is some ancestor: a bound from it says nothing.
    if (revision.steps === undefined) return this.ancestors(id);
    if (revision.reach === 'ancestors') return depth === undefined ? this.ancestors(id) : this.nearAncestors(id, depth);
    const links = this.commit(id);
    if ('unknown' in links) return links;
    for (const commit of revision.reach === 'parents' ? [id, ...links.parents] : [id]) {
      const read = this.commit(commit);
      const stop = 'unknown' in read ? read : this.tree(read.tree);
      if (stop !== undefined) return stop;
    }
    return undefined;
  }

  private ancestors(start: string): Stop | undefined {
    const pending = [start];
    while (pending.length > 0) {
      const id = pending.pop()!;
      if (this.walked.has(id)) continue;
      this.walked.add(id);
      if (this.walked.size > MAX_COMMITS) return 'too-many';
      const links = this.commit(id);
      if ('unknown' in links) return links;
      const stop = this.tree(links.tree);
      if (stop !== undefined) return stop;
      for (const parent of links.parents) pending.push(parent);
    }
    return undefined;
  }

  /** The paths staged in the worktree's index (none without one: a repository with nothing added). */
  index(): Stop | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(`${this.repository.gitDir}/index`);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : { unknown: `${this.repository.gitDir}/index cannot be read` };
    }
    const paths = indexPaths(bytes);
    if ('unknown' in paths) return paths;
    for (const path of paths) this.paths.add(path);
    return this.paths.size > this.limit ? 'too-many' : undefined;
  }

  /** The ancestors at most `depth` parent steps from `start`, breadth first. */
  private nearAncestors(start: string, depth: number): Stop | undefined {
    const distance = new Map([[start, 0]]);
    const pending = [start];
    for (let next = 0; next < pending.length; next++) {
      const id = pending[next]!;
      if (distance.size > MAX_COMMITS) return 'too-many';
      const links = this.commit(id);
      if ('unknown' in links) return links;
      const stop = this.tree(links.tree);
      if (stop !== undefined) return stop;
      const steps = distance.get(id)!;
      if (steps >= depth) continue;
      for (const parent of links.parents) {
        if (distance.has(parent)) continue;
        distance.set(parent, steps + 1);
        pending.push(parent);
      }
    }
    return undefined;
  }

  private commit(id: string): CommitLinks | Unknown {
    return this.parsed(this.commits, id, 'commit', commitLinks);
  }

  /** An object of `type`, parsed once per walk; unknown when missing, of another type or malformed. */
  private parsed<T>(cache: Map<string, T>, id: string, type: 'commit' | 'tree', parse: (body: Uint8Array) => T | undefined): T | Unknown {
    const known = cache.get(id);
    if (known !== undefined) return known;
    const content = this.store.content(id);
    if (content === undefined) return { unknown: `${type} ${id} is not in the repository` };
    if ('unknown' in content) return content;
    const value = content.type === type ? parse(content.body) : undefined;
    if (value === undefined) return { unknown: `object ${id} is not a ${type} that can be read` };
    cache.set(id, value);
    return value;
  }

  private tree(start: string): Stop | undefined {
    const pending: [string, string][] = [[start, '']];
    while (pending.length > 0) {
      const [id, prefix] = pending.pop()!;
      const place = `${id} ${prefix}`;
      if (this.placed.has(place)) continue;
      this.placed.add(place);
      const entries = this.entries(id);
      if ('unknown' in entries) return entries;
      this.entriesRead += entries.length;
      if (this.entriesRead > MAX_TREE_ENTRIES) return 'too-many';
      for (const entry of entries) {
        const path = `${prefix}${entry.name}`;
        // git reads a mode by its type bits (old tools wrote `040000`).
        const type = parseInt(entry.mode, 8) & 0o170000;
        if (type === 0o040000) pending.push([entry.id, `${path}/`]);
        // A submodule's history is another repository's, printed inline by `--submodule=diff` or
        // the `diff.submodule` setting (which may be in a config not read here).
        else if (type === 0o160000) return { unknown: `${path} is a submodule, whose files a patch may print` };
        else {
          this.paths.add(path);
          if (this.paths.size > this.limit) return 'too-many';
        }
      }
    }
    return undefined;
  }

  private entries(id: string): readonly TreeEntry[] | Unknown {
    return this.parsed(this.trees, id, 'tree', treeEntries);
  }
}
