/**
 * Path facts that are bash globs (`echo x >> .en[v]`): bash expands them against the file system,
 * so a rule sees every path they could become. A deny or ask rule matches when SOME such path
 * matches its pattern; an allow rule only when EVERY one does.
 */
import { accepts, commonWord, type Nfa } from './glob-automaton.js';
import { bashGlobNfa } from './glob-bash.js';
import { policyPatternNfa } from './glob-pattern.js';

const MAX_CACHED = 256;
const patternNfas = new Map<string, Nfa>();
const globNfas = new Map<string, Nfa>();

function cached(cache: Map<string, Nfa>, key: string, build: (key: string) => Nfa): Nfa {
  let nfa = cache.get(key);
  if (!nfa) {
    if (cache.size >= MAX_CACHED) cache.clear();
    nfa = build(key);
    cache.set(key, nfa);
  }
  return nfa;
}

/** A path the bash glob could expand to that the (anchored) policy pattern matches, if any. */
export function globPatternWitness(glob: string, anchoredPattern: string): string | undefined {
  return commonWord(cached(globNfas, glob, bashGlobNfa), cached(patternNfas, anchoredPattern, policyPatternNfa));
}

/** Longer globs are not analysed: they may match anything (deny) and are never covered (allow). */
const MAX_GLOB_LENGTH = 1024;

export function globMayMatch(glob: string, anchoredPattern: string): boolean {
  return glob.length > MAX_GLOB_LENGTH || globPatternWitness(glob, anchoredPattern) !== undefined;
}

const MAGIC = /[*?[\]{}()!+@\\]/;

/**
 * Every path the glob expands to matches the pattern. Conservative: only a pattern `DIR/**` with a
 * literal DIR, and a glob whose literal leading directories lie inside DIR and none of whose
 * wildcard components can expand to `.` or `..` (bash skips them; other shells need not).
 */
export function globWithin(glob: string, anchoredPattern: string): boolean {
  if (!anchoredPattern.endsWith('/**') || glob.length > MAX_GLOB_LENGTH) return false;
  const dir = anchoredPattern.slice(0, -3);
  if (MAGIC.test(dir) || (dir !== '' && !dir.startsWith('/'))) return false;
  const parts = glob.split('/').slice(1);
  const firstMagic = parts.findIndex((part) => MAGIC.test(part));
  if (firstMagic === -1) return false;
  const literalParts = parts.slice(0, firstMagic);
  if (literalParts.some((part) => part === '.' || part === '..' || part === '')) return false;
  const prefix = `/${literalParts.join('/')}`;
  if (dir !== '' && prefix !== dir && !prefix.startsWith(`${dir}/`)) return false;
  return parts.slice(firstMagic).every((part) => {
    if (part === '.' || part === '..' || part === '') return false;
    if (!MAGIC.test(part)) return true;
    // `.` and `..` are matched only explicitly, dotglob or not: judged without it.
    const nfa = bashGlobNfa(`/${part}`, false);
    return !accepts(nfa, '/.') && !accepts(nfa, '/..');
  });
}
