import { posix } from 'node:path';

/** Source extensions node, mocha and the test runners load as code the project wrote. */
const SOURCE_EXTENSIONS = new Set(['js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'jsx', 'tsx']);

/**
 * Why a word is not a project path that is safe to hand to a runner that may load it as code: node
 * --test runs every file it is named (whatever its extension: `x.log` runs as CommonJS) and every word
 * after the first file is a file to it, options included; mocha loads named files and glob matches.
 * Allowed: a relative path that stays inside the project and outside node_modules, whose last
 * segment is a JavaScript or TypeScript source or has no extension at all (a directory, or a name
 * filter). mocha's `-u NAME` may still load an installed package by name (node's require).
 */
export function scriptPathProblem(word: string): string | undefined {
  if (word === '') return 'an empty word';
  if (/[*?[\]{}()!\\]/.test(word)) return 'a glob pattern (mocha loads whatever it matches)';
  if (word.startsWith('/') || word.startsWith('~')) return 'a path outside the project';
  const normal = posix.normalize(word);
  if (normal === '..' || normal.startsWith('../')) return 'a path outside the project';
  const segments = normal.split('/').filter((segment) => segment !== '');
  // An installed package's files are code the project did not write (a CLI run with no arguments may act).
  if (segments.includes('node_modules')) return 'a file of an installed package';
  const last = segments.at(-1) ?? '.';
  if (last === '.' || !last.includes('.')) return undefined;
  return SOURCE_EXTENSIONS.has(last.slice(last.lastIndexOf('.') + 1)) ? undefined : 'a file that is not JavaScript or TypeScript source (node --test and mocha run what they are named)';
}
