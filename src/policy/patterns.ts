import { Minimatch } from 'minimatch';
import type { PathContext, PathMatcher, TextMatcher } from './types.js';

const REGEX_LITERAL = /^\/(.+)\/([dgimsuvy]*)$/s;
const MAX_REGEX_LENGTH = 1000;

/** `/regex/flags` is a regular expression; anything else is a glob where `*` matches any text. */
export function compileTextMatcher(source: string): TextMatcher | { error: string } {
  const literal = REGEX_LITERAL.exec(source);
  if (literal) {
    if (source.length > MAX_REGEX_LENGTH) return { error: `regular expression longer than ${MAX_REGEX_LENGTH} characters` };
    try {
      // The global/sticky flags make test() stateful; drop them so a matcher answers the same twice.
      const regex = new RegExp(literal[1]!, literal[2]!.replace(/[gy]/g, ''));
      return { source, test: (value) => regex.test(value) };
    } catch (error) {
      return { error: `invalid regular expression: ${(error as Error).message}` };
    }
  }
  const regex = globToRegExp(source);
  return { source, test: (value) => regex.test(value) };
}

/** A whole-string glob: `*` any run of characters, `?` one character; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  let body = '';
  for (const ch of glob) {
    if (ch === '*') body += '.*';
    else if (ch === '?') body += '.';
    else body += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${body}$`, 's');
}

const WORKSPACE_TOKEN = '${workspace}';

/**
 * Path patterns are globs over absolute, normalised paths (dotfiles included):
 * `/…`, `~/…` and `${workspace}/…` are anchored; `**\/…` matches at any depth; a pattern without `/`
 * matches the file name at any depth; any other relative pattern is relative to the workspace.
 */
export function compilePathMatcher(source: string): PathMatcher | { error: string } {
  if (source.trim() === '') return { error: 'empty path pattern' };
  if (source.includes('${') && !source.startsWith(WORKSPACE_TOKEN)) {
    return { error: '`${workspace}` may only start a path pattern' };
  }
  if (source.startsWith('/') || source.startsWith('**')) {
    const fixed = makeGlob(source);
    return { source, test: (path) => fixed(path) };
  }
  if (!source.includes('/')) {
    const byName = new Minimatch(source, { dot: true, matchBase: true, nocomment: true, nonegate: true });
    return { source, test: (path) => byName.match(path) };
  }
  // Anchored at home or the workspace: compile once per distinct anchor.
  const perAnchor = new Map<string, (path: string) => boolean>();
  const anchorOf = (context: PathContext): string => {
    if (source === '~' || source.startsWith('~/')) return context.home + source.slice(1);
    if (source.startsWith(WORKSPACE_TOKEN)) return context.workspace + source.slice(WORKSPACE_TOKEN.length);
    return `${context.workspace}/${source.replace(/^\.\//, '')}`;
  };
  return {
    source,
    test: (path, context) => {
      const anchored = anchorOf(context);
      let matcher = perAnchor.get(anchored);
      if (!matcher) {
        matcher = makeGlob(anchored);
        if (perAnchor.size > 64) perAnchor.clear();
        perAnchor.set(anchored, matcher);
      }
      return matcher(path);
    },
  };
}

function makeGlob(pattern: string): (path: string) => boolean {
  const mm = new Minimatch(pattern, { dot: true, nocomment: true, nonegate: true });
  // `dir/**` should also cover `dir` itself: a read of the workspace root is inside the workspace.
  const dirPrefix = pattern.endsWith('/**') ? pattern.slice(0, -3) : undefined;
  const dirExact = dirPrefix !== undefined && !/[*?[\]{}]/.test(dirPrefix) ? dirPrefix : undefined;
  return (path) => mm.match(path) || (dirExact !== undefined && path === dirExact);
}
