import { escape, Minimatch } from 'minimatch';
import { globMayMatch, globWithin } from './glob-paths.js';
import { didYouMean } from './diagnostics.js';
import { normalizeHost } from './hosts.js';
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
function globToRegExp(glob: string): RegExp {
  let body = '';
  for (const ch of glob) {
    if (ch === '*') body += '.*';
    else if (ch === '?') body += '.';
    else body += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${body}$`, 's');
}

const URL_PATTERN = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is;

/** A url condition: its host part normalised like the URLs it is tested against; `/regex/` as written. */
export function compileUrlMatcher(source: string): TextMatcher | { error: string } {
  if (/^\/.+\/[dgimsuvy]*$/s.test(source)) return compileTextMatcher(source);
  const withScheme = URL_PATTERN.exec(source);
  let normalized = source;
  if (withScheme) {
    const [, scheme, authority, rest] = withScheme as unknown as [string, string, string, string];
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    const port = /:(\d+|\*)$/.exec(hostPort);
    const host = port ? hostPort.slice(0, port.index) : hostPort;
    normalized = `${scheme.toLowerCase()}${normalizeHost(host)}${port ? port[0] : ''}${rest}`;
  } else if (!source.includes('/') && !source.includes(':')) {
    normalized = normalizeHost(source);
  }
  const compiled = compileTextMatcher(normalized);
  return 'error' in compiled ? compiled : { ...compiled, source };
}

const WORKSPACE_TOKEN = '${workspace}';
const MAGIC = /[*?[\]{}()]/;
const MAX_COMPILED = 64;

/**
 * Path patterns are globs over absolute, normalised paths (dotfiles included):
 * `/…`, `~/…` and `${workspace}/…` are anchored; `**\/…` matches at any depth; a pattern without `/`
 * matches the file name at any depth; any other relative pattern is relative to the workspace.
 * Request paths are canonical (symlinks resolved), so an anchored pattern is also tried with its
 * literal leading directories canonicalised: `/etc/**` is `/private/etc/**` on macOS, and a home or
 * workspace reached through a symlink still matches.
 */
export function compilePathMatcher(source: string): PathMatcher | { error: string; hint?: string } {
  if (source.trim() === '') return { error: 'empty path pattern' };
  const variable = /\$\{([^}]*)\}?/.exec(source);
  if (variable && variable[0] !== WORKSPACE_TOKEN) {
    // Only `${workspace}` is known: any other `${…}` would be matched literally, and never match.
    const name = variable[1]!;
    const hint = /^home$/i.test(name) ? 'write `~/…` for the home directory' : didYouMean(name, ['workspace']) ? 'did you mean `${workspace}`?' : 'path patterns know only `${workspace}` (and a leading `~`)';
    return { error: `unknown variable \`${variable[0]}\` in a path pattern`, hint };
  }
  if (source.includes(WORKSPACE_TOKEN) && !source.startsWith(WORKSPACE_TOKEN)) {
    return { error: '`${workspace}` may only start a path pattern' };
  }
  if (!source.startsWith('/') && !source.startsWith('**') && !source.includes('/')) {
    const byName = new Minimatch(source, { dot: true, matchBase: true, nocomment: true, nonegate: true });
    const anywhere = `**/${source}`;
    return {
      source,
      test: (path) => byName.match(path),
      testGlob: (glob, _context, mode) => (mode === 'some' ? globMayMatch(glob, anywhere) : false),
    };
  }
  const anchorOf = (context: PathContext): string => {
    if (source.startsWith('/') || source.startsWith('**')) return source;
    if (source === '~' || source.startsWith('~/')) return context.home + source.slice(1);
    if (source.startsWith(WORKSPACE_TOKEN)) return context.workspace + source.slice(WORKSPACE_TOKEN.length);
    return `${context.workspace}/${source.replace(/^\.\//, '')}`;
  };
  /**
   * For an allow rule only the anchor's root is canonicalised (home, workspace, or the first
   * directory of an absolute pattern): a link below it may be the agent's own, and must not widen
   * what is allowed. A deny or ask rule canonicalises its whole literal prefix.
   */
  const rootOf = (context: PathContext): string => {
    if (source === '~' || source.startsWith('~/')) return context.home;
    if (source.startsWith('/')) return `/${source.split('/')[1] ?? ''}`;
    return context.workspace;
  };
  // Compiled once per distinct anchored pattern (the workspace and home vary by session).
  const compiled = new Map<string, (path: string) => boolean>();
  const matcherFor = (anchored: string) => {
    let matcher = compiled.get(anchored);
    if (!matcher) {
      matcher = makeGlob(anchored);
      if (compiled.size >= MAX_COMPILED) compiled.clear();
      compiled.set(anchored, matcher);
    }
    return matcher;
  };
  // Once per evaluation, not per path tested: a context stands for one evaluation (types.ts).
  let lastVariant: { readonly context: PathContext; readonly anchored: string; readonly forAllow: boolean; readonly variant: string | undefined } | undefined;
  const canonicalOf = (anchored: string, context: PathContext, forAllow: boolean) => {
    const last = lastVariant;
    if (last !== undefined && last.context === context && last.anchored === anchored && last.forAllow === forAllow) return last.variant;
    const variant = canonicalVariant(anchored, context, forAllow ? rootOf(context) : undefined);
    lastVariant = { context, anchored, forAllow, variant };
    return variant;
  };
  // The anchored pattern and its matcher for the last workspace and home (one session asks again and again).
  let last: { readonly workspace: string; readonly home: string; readonly anchored: string; readonly matcher: (path: string) => boolean } | undefined;
  const anchoredFor = (context: PathContext) => {
    if (last === undefined || last.workspace !== context.workspace || last.home !== context.home) {
      const anchored = anchorOf(context);
      last = { workspace: context.workspace, home: context.home, anchored, matcher: matcherFor(anchored) };
    }
    return last;
  };
  return {
    source,
    test: (path, context, forAllow = false) => {
      const { anchored, matcher } = anchoredFor(context);
      if (matcher(path)) return true;
      const canonical = canonicalOf(anchored, context, forAllow);
      return canonical !== undefined && matcherFor(canonical)(path);
    },
    testGlob: (glob, context, mode) => {
      const anchored = anchorOf(context);
      const canonical = canonicalOf(anchored, context, mode === 'every');
      const test = mode === 'some' ? globMayMatch : globWithin;
      return test(glob, anchored) || (canonical !== undefined && test(glob, canonical));
    },
  };
}

/**
 * The anchored pattern with its literal leading directories canonicalised (only up to `root` when
 * given); undefined when that changes nothing.
 */
function canonicalVariant(anchored: string, context: PathContext, root: string | undefined): string | undefined {
  if (!context.canonicalize || !anchored.startsWith('/')) return undefined;
  const parts = anchored.split('/').slice(1);
  let literalCount = parts.findIndex((part) => MAGIC.test(part) || part.includes('\\'));
  if (literalCount === -1) literalCount = parts.length;
  if (root !== undefined) literalCount = Math.min(literalCount, root.split('/').filter((part) => part !== '').length);
  if (literalCount === 0) return undefined;
  const prefix = `/${parts.slice(0, literalCount).join('/')}`;
  const canonical = context.canonicalize(prefix);
  if (canonical === prefix) return undefined;
  const rest = parts.slice(literalCount);
  return [escape(canonical === '/' ? '' : canonical), ...rest].join('/') || '/';
}

function makeGlob(pattern: string): (path: string) => boolean {
  const mm = new Minimatch(pattern, { dot: true, nocomment: true, nonegate: true });
  // `dir/**` should also cover `dir` itself: a read of the workspace root is inside the workspace.
  const dirPrefix = pattern.endsWith('/**') ? pattern.slice(0, -3) : undefined;
  const dirExact = dirPrefix !== undefined && !/[*?[\]{}]/.test(dirPrefix) ? dirPrefix : undefined;
  return (path) => mm.match(path) || (dirExact !== undefined && path === dirExact);
}

