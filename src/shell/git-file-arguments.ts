/**
 * git's file arguments: `-C DIR` moves relative paths; `show`/`cat-file`/`diff` `REV:PATH` and `log
 * -L RANGE:PATH` read PATH (relative to the repository root, taken as the cwd: deny rules on file
 * names still see it); pathspecs after `--` of show/log/diff/blame are read; `--output` files are
 * written, `-O`/`--orderfile` files read; `apply`/`am` read their patches. `git diff` between paths
 * outside the repository (`--no-index`, implied when a path is outside it) reads whole directories:
 * unknown. git is 'partial': its other words still get the facts layer's deny-only check.
 */
import { part, within } from './argument-grammar.js';
import type { FileAccess, FileArgument, FileRoles } from './argument-roles.js';
import type { Word } from './words.js';

const GIT_GLOBAL_VALUED = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds'];

/** Subcommands whose diff options (`-O`, `--orderfile`, `--output`) apply. */
const DIFFING = new Set(['diff', 'log', 'show', 'whatchanged', 'format-patch', 'diff-tree', 'diff-index', 'diff-files', 'range-diff', 'stash']);

export function gitFiles(args: readonly Word[]): FileRoles {
  let i = 0;
  let base: Word | undefined;
  for (; i < args.length; i++) {
    const text = args[i]!.text;
    if (!text.startsWith('-')) break;
    const directory = text === '-C' ? args[i + 1] : undefined;
    if (directory) base = within(base, directory);
    if (GIT_GLOBAL_VALUED.includes(text)) i++;
  }
  const subcommand = args[i]?.text ?? '';
  const rest = args.slice(i + 1);
  const files: FileArgument[] = [];
  const unknown: string[] = [];
  const add = (word: Word, access: FileAccess) => files.push({ word, access, ...(base ? { base } : {}) });
  let pathspecs = false;
  const operands: Word[] = [];
  for (let j = 0; j < rest.length; j++) {
    const word = rest[j]!;
    const text = word.text;
    if (text === '--') {
      pathspecs = true;
      continue;
    }
    if (!pathspecs && /^--output(=|$)/.test(text)) {
      const value = text === '--output' ? rest[++j] : part(word, '--output='.length);
      if (value) add(value, 'write');
      continue;
    }
    if (!pathspecs && DIFFING.has(subcommand)) {
      // `-O FILE`, `-OFILE`, `--orderfile[=]FILE` (parse-options also takes a prefix: `--or=FILE`).
      const order = /^(-O|--or(?:d(?:e(?:r(?:f(?:i(?:le?)?)?)?)?)?)?=?)(.*)$/.exec(text);
      if (order) {
        const value = order[2] !== '' ? part(word, order[1]!.length) : rest[++j];
        if (value) add(value, 'read');
        continue;
      }
    }
    if (!pathspecs && subcommand === 'log' && text.startsWith('-L')) {
      const value = text === '-L' ? rest[++j] : part(word, 2);
      for (const path of lineRangePaths(value)) add(path, 'read');
      continue;
    }
    if (!pathspecs && subcommand === 'diff') {
      if (/^--no-i(n(d(ex?)?)?)?$/.test(text)) unknown.push('git diff --no-index compares files and whole directories outside git');
      else if (!text.startsWith('-')) operands.push(word);
    }
    if (pathspecs && ['show', 'log', 'diff', 'blame', 'cat-file'].includes(subcommand)) {
      // `:(icase).ENV`, `:(glob)**/.env`, `:/x`, `:!x`: magic pathspecs match paths not as written.
      if (text.startsWith(':')) unknown.push(`git pathspec magic matches paths not as written: ${text}`);
      else add({ ...word, glob: word.glob || /[*?[]/.test(text) }, 'read');
    } else if (!pathspecs && (subcommand === 'show' || subcommand === 'cat-file' || subcommand === 'diff') && !text.startsWith('-')) {
      const path = revisionPath(word);
      if (path) add(path, 'read');
    } else if ((subcommand === 'apply' || subcommand === 'am') && !text.startsWith('-')) add(word, 'read');
  }
  // `git diff A B` with a path outside the work tree is `--no-index` (git-diff(1)): it reads A and B, directories whole.
  if (operands.length >= 2 && operands.some((word) => outsideTree(word.text))) unknown.push('git diff with a path outside the repository compares whole directories (--no-index)');
  return { files, unknown };
}

/** A word git may take for a path outside the work tree: absolute, `~`, or with a `..` component. */
function outsideTree(text: string): boolean {
  return text.startsWith('/') || text.startsWith('~') || text.split('/').includes('..');
}

/**
 * The file of `git log -L START,END:FILE` / `-L :FUNCNAME:FILE`: what follows a colon. A function
 * regex may itself hold colons, so every suffix after a colon is taken (one of them is the file).
 */
function lineRangePaths(value: Word | undefined): Word[] {
  if (!value) return [];
  const paths: Word[] = [];
  for (let colon = value.text.indexOf(':', 1); colon !== -1; colon = value.text.indexOf(':', colon + 1)) {
    if (colon + 1 < value.text.length) paths.push(part(value, colon + 1));
  }
  return paths;
}

/**
 * The PATH of `REV:PATH` / `:N:PATH` / `:PATH`; undefined for a plain revision or the root tree. Like
 * git, a colon inside braces (`HEAD^{/fix: x}:.env`, `@{1:00}`) is part of the revision.
 */
function revisionPath(word: Word): Word | undefined {
  const text = word.text;
  const colon = /^:[0-3]:/.test(text) ? 2 : colonOutsideBraces(text);
  if (colon === -1 || text.startsWith(':/')) return undefined;
  const path = part(word, colon + 1);
  return path.text === '' ? undefined : path;
}

export function colonOutsideBraces(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '{') depth++;
    else if (char === '}' && depth > 0) depth--;
    else if (char === ':' && depth === 0) return i;
  }
  return -1;
}
