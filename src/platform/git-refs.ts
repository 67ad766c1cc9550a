/**
 * A short name resolved to a ref as git's dwim does (`NAME`, `refs/NAME`, `refs/tags/NAME`,
 * `refs/heads/NAME`, `refs/remotes/NAME`, `refs/remotes/NAME/HEAD`, first found wins), read-only from
 * loose ref files and packed-refs, symbolic refs followed. git 2.39 reads any file under the git
 * directory by the bare rule (`git show foo` reads `.git/foo`); one not holding an id is no ref to
 * it (`git show config`). HEAD, pseudo-refs (`FETCH_HEAD`) and
 * `refs/bisect|worktree|rewritten/` are the worktree's own; other refs are shared.
 */
import { readText, type Repository } from './git-repository.js';
import type { Unknown } from './git-object-store.js';

export interface ResolvedRef {
  /** The full name the short name resolved to, after symbolic refs (`refs/heads/main` for HEAD). */
  readonly name: string;
  readonly id: string;
}

const RULES = ['%s', 'refs/%s', 'refs/tags/%s', 'refs/heads/%s', 'refs/remotes/%s', 'refs/remotes/%s/HEAD'];
const MAX_SYMREF_DEPTH = 5;
const PER_WORKTREE = /^(HEAD|[A-Z_]+|refs\/(bisect|worktree|rewritten)\/.*)$/;

export function resolveRefName(repository: Repository, short: string): ResolvedRef | Unknown | undefined {
  // git's refname rules (check-ref-format), for the names we read files by.
  if (short === '' || /(^[/.-])|\.\.|\/\/|@\{|[\0-\x20\x7f~^:?*[\\]|\.lock$|\/$|\/\./.test(short)) return undefined;
  // Another worktree's refs (`main-worktree/HEAD`, `worktrees/NAME/…`) are not read here.
  if (/^(main-worktree|worktrees)\//.test(short)) return { unknown: `${short} names another worktree's ref` };
  const packed = packedRefs(repository);
  if ('unknown' in packed) return packed;
  for (const rule of RULES) {
    const full = rule.replace('%s', short);
    const resolved = readRef(repository, packed.refs, full, 0);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}

function readRef(repository: Repository, packed: ReadonlyMap<string, string>, full: string, depth: number): ResolvedRef | Unknown | undefined {
  if (depth > MAX_SYMREF_DEPTH) return { unknown: `the symbolic ref ${full} is nested too deeply` };
  const directory = PER_WORKTREE.test(full) ? repository.gitDir : repository.commonDir;
  const text = readText(`${directory}/${full}`);
  if (text !== undefined) {
    const symbolic = /^ref: (refs\/\S+|HEAD)\s*$/.exec(text);
    if (symbolic) {
      const target = readRef(repository, packed, symbolic[1]!, depth + 1);
      return target ?? undefined;
    }
    // FETCH_HEAD holds lines `ID\t…`; git takes the first id.
    const id = /^([0-9a-f]{40})(\s|$)/.exec(text)?.[1];
    if (id) return { name: full, id };
    // A file not holding an id is no ref to git (`.git/config`); a broken ref under refs/ is ignored with a warning.
    return undefined;
  }
  const id = packed.get(full);
  return id === undefined ? undefined : { name: full, id };
}

function packedRefs(repository: Repository): { readonly refs: ReadonlyMap<string, string> } | Unknown {
  const refs = new Map<string, string>();
  const text = readText(`${repository.commonDir}/packed-refs`);
  if (text === undefined) return { refs };
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const match = /^([0-9a-f]{40}) (\S+)$/.exec(line);
    if (!match) return { unknown: `${repository.commonDir}/packed-refs has a line not read here` };
    refs.set(match[2]!, match[1]!);
  }
  return { refs };
}
