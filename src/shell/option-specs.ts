/**
 * What we know about the options of common (mostly destructive or networked) commands, so a
 * pattern like `rm -rf /` matches every spelling: `-fr`, `-r -f`, `--recursive --force`, and so
 * option values (`curl -o out.txt`) are not taken for positional words.
 *
 * An alias maps a spelling to the option keys it sets. A command has the union of the keys of its
 * options; a pattern option needs all of its keys. So `git push --force-with-lease` sets
 * {force-with-lease, force} and matches a pattern `--force`, while `-f` sets {force} and does not
 * match a pattern `--force-with-lease`; `git branch -D` sets {delete, force} = `--delete --force`.
 */

import { LONG_OPTIONS, PARTIAL_LONG_OPTIONS } from './long-options.js';

export interface OptionTable {
  readonly aliases: Readonly<Record<string, readonly string[]>>;
  /** Spellings that take a value (`-o FILE`, `-oFILE`, `--output FILE`, `--output=FILE`). */
  readonly valued: ReadonlySet<string>;
  /** Extra option keys implied by a positional word (git push `+main` forces). */
  readonly positionalImplies?: (word: string) => readonly string[];
  /**
   * The real parser takes a unique prefix of a long option for the option (`rm --rec`): the long
   * options we know (`--name`, besides those of `aliases`/`valued`), and whether that is all of
   * them (else any prefix is ambiguous). Absent: only exact names.
   */
  readonly abbreviations?: { readonly names: readonly string[]; readonly complete: boolean };
}

export interface ProgramSpec extends OptionTable {
  /** Programs with subcommands: the table for options after the subcommand. Before it, this one. */
  readonly subcommands?: Readonly<Record<string, OptionTable>>;
  /** The table after a subcommand `subcommands` does not list. */
  readonly otherSubcommands?: OptionTable;
}

interface TableSource {
  /** Groups of spellings that are the same option; the canonical key is the first long name. */
  readonly same?: readonly (readonly string[])[];
  /** spelling → all the keys it sets (when it means more than one option). */
  readonly implies?: Readonly<Record<string, readonly string[]>>;
  readonly valued?: readonly string[];
  readonly positionalImplies?: (word: string) => readonly string[];
}

function table(source: TableSource): OptionTable {
  const aliases: Record<string, string[]> = {};
  for (const group of source.same ?? []) {
    const canonical = (group.find((spelling) => spelling.startsWith('--')) ?? group[0]!).replace(/^-+/, '');
    for (const spelling of group) aliases[spelling] = [canonical];
  }
  for (const [spelling, keys] of Object.entries(source.implies ?? {})) aliases[spelling] = [...keys];
  const result: OptionTable = { aliases, valued: new Set(source.valued ?? []) };
  return source.positionalImplies ? { ...result, positionalImplies: source.positionalImplies } : result;
}

const RECURSIVE = ['-r', '-R', '--recursive'];
const FORCE = ['-f', '--force'];

const GIT_GLOBAL = table({
  same: [['-p', '--paginate'], ['-P', '--no-pager']],
  valued: ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds'],
});

const GIT_SUBCOMMANDS: Record<string, OptionTable> = {
  push: table({
    same: [FORCE, ['-d', '--delete'], ['-u', '--set-upstream'], ['-n', '--dry-run'], ['-q', '--quiet'], ['-v', '--verbose']],
    implies: {
      '--force-with-lease': ['force-with-lease', 'force'],
      '--force-if-includes': ['force-if-includes', 'force'],
      '--mirror': ['mirror', 'force'],
    },
    valued: ['--repo', '--receive-pack', '--exec', '-o', '--push-option', '--recurse-submodules'],
    positionalImplies: (word) => (word.startsWith('+') ? ['force'] : word.startsWith(':') ? ['delete'] : []),
  }),
  reset: table({ same: [['-q', '--quiet'], ['-p', '--patch']], valued: ['--pathspec-from-file'] }),
  clean: table({
    same: [FORCE, ['-d'], ['-x'], ['-X'], ['-n', '--dry-run'], ['-i', '--interactive'], ['-q', '--quiet']],
    valued: ['-e', '--exclude'],
  }),
  checkout: table({
    same: [FORCE, ['-q', '--quiet'], ['-p', '--patch'], ['-m', '--merge']],
    valued: ['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file'],
  }),
  switch: table({ same: [FORCE, ['--discard-changes']], valued: ['-c', '--create', '-C', '--force-create', '--orphan'] }),
  restore: table({ same: [['-s', '--source'], ['-W', '--worktree'], ['-S', '--staged']], valued: ['-s', '--source', '--pathspec-from-file'] }),
  branch: table({
    same: [['-d', '--delete'], FORCE, ['-m', '--move'], ['-c', '--copy'], ['-a', '--all'], ['-r', '--remotes'], ['-u', '--set-upstream-to']],
    implies: { '-D': ['delete', 'force'], '-M': ['move', 'force'], '-C': ['copy', 'force'] },
    valued: ['-u', '--set-upstream-to', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--format', '--sort'],
  }),
  commit: table({
    same: [['-a', '--all'], ['-n', '--no-verify'], ['-q', '--quiet'], ['-v', '--verbose'], ['-s', '--signoff']],
    valued: ['-m', '--message', '-F', '--file', '-C', '--reuse-message', '-c', '--reedit-message', '--author', '--date', '--fixup', '--squash', '-t', '--template', '--cleanup', '--trailer'],
  }),
  rm: table({ same: [FORCE, ['-r'], ['-n', '--dry-run'], ['-q', '--quiet']], valued: ['--pathspec-from-file'] }),
  stash: table({ same: [['-u', '--include-untracked'], ['-a', '--all'], ['-k', '--keep-index'], ['-q', '--quiet']], valued: ['-m', '--message'] }),
  log: table({ valued: ['-n', '--max-count', '--author', '--committer', '--grep', '--since', '--until', '--format', '--pretty', '--skip', '-L', '-G', '-S', '--output'] }),
  diff: table({ valued: ['--output', '-U', '--unified', '--diff-filter', '--relative', '--word-diff-regex', '-O'] }),
  show: table({ valued: ['--format', '--pretty', '--output'] }),
  rebase: table({ same: [['-i', '--interactive'], ['-f', '--force-rebase']], valued: ['--onto', '-x', '--exec', '-s', '--strategy', '-X', '--strategy-option'] }),
  tag: table({ same: [['-d', '--delete'], FORCE, ['-a', '--annotate'], ['-s', '--sign']], valued: ['-m', '--message', '-F', '--file', '-u', '--local-user'] }),
  remote: table({}),
  fetch: table({ same: [FORCE, ['-p', '--prune'], ['-a', '--append']], valued: ['--depth', '--deepen', '--shallow-since', '-j', '--jobs', '-o', '--server-option'] }),
  pull: table({ same: [FORCE, ['-r', '--rebase']], valued: ['--depth', '-s', '--strategy', '-X', '--strategy-option'] }),
  merge: table({ valued: ['-m', '-s', '--strategy', '-X', '--strategy-option', '-F', '--file'] }),
  add: table({ same: [FORCE, ['-A', '--all'], ['-u', '--update'], ['-p', '--patch'], ['-n', '--dry-run']], valued: ['--pathspec-from-file', '--chmod'] }),
};

const CURL = table({
  same: [
    ['-o', '--output'], ['-O', '--remote-name'], ['-T', '--upload-file'], ['-X', '--request'], ['-H', '--header'],
    ['-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json'],
    ['-F', '--form', '--form-string'], ['-u', '--user'], ['-L', '--location'], ['-s', '--silent'], ['-S', '--show-error'],
    ['-k', '--insecure'], ['-f', '--fail'], ['-v', '--verbose'], ['-i', '--include'], ['-I', '--head'], ['-x', '--proxy'],
    ['-K', '--config'], ['-D', '--dump-header'], ['-c', '--cookie-jar'], ['-b', '--cookie'], ['-A', '--user-agent'],
    ['-e', '--referer'], ['-w', '--write-out'], ['-m', '--max-time'], ['-r', '--range'], ['-C', '--continue-at'],
    ['-E', '--cert'], ['-G', '--get'], ['-J', '--remote-header-name'],
  ],
  valued: [
    '-o', '--output', '-T', '--upload-file', '-X', '--request', '-H', '--header', '-d', '--data', '--data-raw',
    '--data-binary', '--data-urlencode', '--data-ascii', '--json', '-F', '--form', '--form-string', '-u', '--user',
    '-x', '--proxy', '-K', '--config', '-D', '--dump-header', '-c', '--cookie-jar', '-b', '--cookie', '-A',
    '--user-agent', '-e', '--referer', '-w', '--write-out', '-m', '--max-time', '-r', '--range', '-C',
    '--continue-at', '-E', '--cert', '--key', '--cacert', '--connect-timeout', '--retry', '--url', '--output-dir',
    '-U', '--proxy-user', '-z', '--time-cond', '--resolve', '--limit-rate', '-Y', '-y', '-Q', '--quote',
  ],
});

const WGET = table({
  same: [
    ['-O', '--output-document'], ['-o', '--output-file'], ['-P', '--directory-prefix'], ['-q', '--quiet'],
    ['-r', '--recursive'], ['-c', '--continue'], ['-N', '--timestamping'], ['-i', '--input-file'],
    ['-U', '--user-agent'], ['-e', '--execute'], ['-a', '--append-output'], ['--post-data'],
  ],
  implies: { '--post-file': ['post-file', 'post-data'] },
  valued: [
    '-O', '--output-document', '-o', '--output-file', '-P', '--directory-prefix', '-i', '--input-file', '-U',
    '--user-agent', '-e', '--execute', '-a', '--append-output', '--post-data', '--post-file', '--header',
    '-t', '--tries', '-T', '--timeout', '-l', '--level', '-A', '--accept', '-R', '--reject', '--method', '--body-data',
  ],
});

const RM = table({
  same: [RECURSIVE, FORCE, ['-i'], ['-I'], ['-v', '--verbose'], ['-d', '--dir']],
});

const COPY_MOVE = {
  same: [FORCE, ['-i', '--interactive'], ['-n', '--no-clobber'], ['-v', '--verbose'], ['-u', '--update'], ['-b', '--backup']],
  valued: ['-t', '--target-directory', '-S', '--suffix'],
};

const CP = table({
  same: [...COPY_MOVE.same, RECURSIVE, ['-a', '--archive'], ['-p'], ['-l', '--link'], ['-s', '--symbolic-link']],
  implies: { '-a': ['archive', 'recursive'], '--archive': ['archive', 'recursive'] },
  valued: COPY_MOVE.valued,
});

const OWNERSHIP = table({
  same: [['-R', '--recursive'], ['-f', '--silent', '--quiet'], ['-v', '--verbose'], ['-c', '--changes'], ['-h', '--no-dereference']],
  valued: ['--reference', '--from'],
});

/** Adds what long-options.ts knows about prefixes to the table of `name` (`rm`, `git push`). */
function withAbbreviations<T extends OptionTable>(name: string, base: T): T {
  const listed = Object.hasOwn(LONG_OPTIONS, name) ? LONG_OPTIONS[name]!.split(' ') : [];
  const complete = listed.length > 0 && !PARTIAL_LONG_OPTIONS.has(name);
  if (!complete && !PARTIAL_LONG_OPTIONS.has(name)) return base;
  const valued = new Set(base.valued);
  for (const option of listed) if (option.endsWith('=')) valued.add(`--${option.slice(0, -1)}`);
  const names = new Set([...listed.map((option) => `--${option.replace(/=$/, '')}`), ...Object.keys(base.aliases), ...base.valued]);
  return { ...base, valued, abbreviations: { names: [...names].filter((option) => option.startsWith('--')), complete } };
}

for (const [subcommand, spec] of Object.entries(GIT_SUBCOMMANDS)) GIT_SUBCOMMANDS[subcommand] = withAbbreviations(`git ${subcommand}`, spec);

const TABLES: Readonly<Record<string, ProgramSpec>> = {
  // Every git subcommand parses its options with parse-options, which takes prefixes.
  git: { ...GIT_GLOBAL, subcommands: GIT_SUBCOMMANDS, otherSubcommands: { aliases: {}, valued: new Set(), abbreviations: { names: [], complete: false } } },
  curl: CURL,
  wget: WGET,
  rm: RM,
  cp: CP,
  mv: table(COPY_MOVE),
  chmod: OWNERSHIP,
  chown: OWNERSHIP,
  chgrp: OWNERSHIP,
  grep: table({ same: [['-r', '--recursive'], ['-R', '--dereference-recursive'], ['-i', '--ignore-case']], valued: ['-e', '--regexp', '-f', '--file', '-m', '--max-count', '-A', '--after-context', '-B', '--before-context', '-C', '--context', '--include', '--exclude', '--exclude-dir'] }),
  head: table({ valued: ['-n', '--lines', '-c', '--bytes'] }),
  tail: table({ valued: ['-n', '--lines', '-c', '--bytes'] }),
  sed: table({ same: [['-i', '--in-place'], ['-n', '--quiet', '--silent'], ['-E', '-r', '--regexp-extended']], valued: ['-e', '--expression', '-f', '--file'] }),
  sort: table({ valued: ['-o', '--output', '-k', '--key', '-t', '--field-separator', '-T', '--temporary-directory'] }),
  tar: table({ valued: ['-f', '--file', '-C', '--directory'] }),
  // npm's string-valued config options most used on a command line; an unknown one is a flag to
  // npm too (`npm --foo bar` runs `bar`), so only the value of a listed one is taken for a value.
  npm: table({ valued: ['--prefix', '-C', '-w', '--workspace', '--registry', '--tag', '--access', '--otp', '--userconfig', '--globalconfig', '--cache', '--loglevel', '--scope', '--auth-type', '--before', '--omit', '--include', '--install-strategy', '--location', '-L', '--proxy', '--https-proxy', '--noproxy', '--cafile', '--cert', '--key', '--script-shell', '--node-options', '--fetch-retries', '--fetch-timeout', '--provenance-file', '--pack-destination', '--preid', '--message', '-m'] }),
  ssh: table({ valued: ['-i', '-p', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-b', '-c', '-E', '-e', '-m', '-O', '-Q', '-S', '-W', '-w', '-B', '-I'] }),
  kubectl: table({ valued: ['-n', '--namespace', '--context', '-f', '--filename', '-o', '--output', '-l', '--selector'] }),
  docker: table({ valued: ['-H', '--host', '--context', '-c', '--config', '-l', '--log-level'] }),
};

const PROGRAM_SPECS: Readonly<Record<string, ProgramSpec>> = Object.fromEntries(
  Object.entries(TABLES).map(([program, spec]) => [program, withAbbreviations(program, spec)]),
);

const EMPTY_TABLE: OptionTable = { aliases: {}, valued: new Set() };

export function programSpec(program: string): ProgramSpec {
  // Own keys only: `constructor`, `toString`, `__proto__` are program names too.
  return Object.hasOwn(PROGRAM_SPECS, program) ? PROGRAM_SPECS[program]! : EMPTY_TABLE;
}
