import { posix } from 'node:path';
import { leavesProject } from './project-paths.js';

/** Source extensions node, mocha and the test runners load as code the project wrote. */
const SOURCE_EXTENSIONS = new Set(['js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'jsx', 'tsx']);
const GLOB = /[*?[\]]/;

/**
 * Why a word is not a project path that is safe to hand to a runner that may load it as code: node
 * --test runs every file it is named (whatever its extension: `x.log` runs as CommonJS) and every word
 * after the first file is a file to it, options included; mocha loads named files and glob matches.
 * Allowed: a relative path that stays inside the project and outside node_modules, whose last
 * segment is a JavaScript or TypeScript source or has no extension at all (a directory, or a name
 * filter). A glob (`src/*.ts`, expanded by bash or by mocha) only with a source extension written
 * out, and no segment that may match `..` (`.*`). mocha's `-u NAME` may still load an installed
 * package by name (node's require).
 */
export function scriptPathProblem(word: string): string | undefined {
  if (word === '') return 'an empty word';
  if (/[{}()!\\]/.test(word)) return 'a pattern mocha would expand (braces, extglob, negation)';
  // Any `..` segment, not only one that climbs lexically: node resolves `link/../x.js` as written
  // (./x.js), the kernel through the link (cat read the file beside the link's target), and the
  // script may be either.
  if (leavesProject(word)) return 'a path outside the project';
  const normal = posix.normalize(word);
  const segments = normal.split('/').filter((segment) => segment !== '');
  // An installed package's files are code the project did not write (a CLI run with no arguments may act).
  if (segments.includes('node_modules')) return 'a file of an installed package';
  if (segments.some((segment) => segment.startsWith('.') && GLOB.test(segment))) return 'a glob that may match `..`';
  const last = segments.at(-1) ?? '.';
  if (last === '.' || (!last.includes('.') && !GLOB.test(last))) return undefined;
  const extension = last.slice(last.lastIndexOf('.') + 1);
  if (SOURCE_EXTENSIONS.has(extension) && last.includes('.')) return undefined;
  return GLOB.test(last) ? 'a glob that may match files other than JavaScript or TypeScript source' : 'a file that is not JavaScript or TypeScript source (node --test and mocha run what they are named)';
}
