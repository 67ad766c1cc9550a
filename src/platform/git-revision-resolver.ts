/**
 * What a revision's base names in the repository git would use from a directory — commit, tree or
 * blob, tags peeled as `git show` peels them — read from `.git` as git reads it (git-repository.ts,
 * git-refs.ts, git-object-store.ts): a name is a full id first, then a ref (dwim), then describe
 * output (`…-gHEX`), then an abbreviated id. What cannot be read with certainty is unknown.
 */
import type { GitRevisionResolver, RevisionObject } from '../facts/git-object-facts.js';
import type { Unknown } from './git-object-store.js';
import { ObjectStores } from './git-object-stores.js';
import { resolveRefName } from './git-refs.js';
import { findRepository, type Repository } from './git-repository.js';

/** Tags of tags followed at most this far. */
const MAX_PEEL = 16;

export function diskGitRevisionResolver(): GitRevisionResolver {
  return (directory, base) => {
    const repository = findRepository(directory);
    // No repository: git fails before it prints anything.
    if (repository === undefined) return 'absent';
    if ('unknown' in repository) return repository;
    const store = new ObjectStores(repository.objectDirectories);
    try {
      return resolveBase(repository, store, base.name === '@' || (base.reflog && base.name === '') ? 'HEAD' : base.name, base.reflog);
    } finally {
      store.close();
    }
  };
}

function resolveBase(repository: Repository, store: ObjectStores, name: string, reflog: boolean): RevisionObject {
  if (reflog) {
    // git writes only commits to HEAD and branches (update-ref refuses anything else), so their reflogs hold commits.
    const ref = resolveRefName(repository, name);
    if (ref && !('unknown' in ref) && (ref.name === 'HEAD' || ref.name.startsWith('refs/heads/'))) return 'commit';
    return { unknown: `the reflog of ${name} may hold other objects than commits` };
  }
  const named = resolveNamedObject(repository, store, name);
  return typeof named === 'object' && 'id' in named ? named.type : named;
}

/** The object a name (full id, ref, describe output, abbreviated id) names, tags peeled. */
export function resolveNamedObject(repository: Repository, store: ObjectStores, name: string): { readonly id: string; readonly type: 'commit' | 'tree' | 'blob' } | 'absent' | Unknown {
  if (/^[0-9a-f]{40}$/i.test(name)) return peel(repository, store, name.toLowerCase());
  const ref = resolveRefName(repository, name);
  if (ref !== undefined) return 'unknown' in ref ? ref : peel(repository, store, ref.id);
  const abbreviated = /-g([0-9a-f]{4,40})$/i.exec(name)?.[1] ?? (/^[0-9a-f]{4,39}$/i.test(name) ? name : undefined);
  if (abbreviated === undefined) return 'absent';
  const found = store.find(abbreviated.toLowerCase());
  if ('unknown' in found) return found;
  if (found.length > 1) return { unknown: `the abbreviated id ${abbreviated} is ambiguous` };
  if (found.length === 0) return repository.incomplete ? { unknown: `${abbreviated} may name an object of a promisor remote` } : 'absent';
  return peel(repository, store, found[0]!);
}

function peel(repository: Repository, store: ObjectStores, start: string): { readonly id: string; readonly type: 'commit' | 'tree' | 'blob' } | 'absent' | Unknown {
  let id = start;
  for (let hops = 0; hops < MAX_PEEL; hops++) {
    const object = store.object(id);
    if (object === undefined) return repository.incomplete ? { unknown: `object ${id} may be fetched from a promisor remote` } : 'absent';
    if ('unknown' in object) return object;
    if (object.type !== 'tag') return { id, type: object.type };
    id = object.target!;
  }
  return { unknown: `tags nested deeper than ${MAX_PEEL} from ${start}` };
}
