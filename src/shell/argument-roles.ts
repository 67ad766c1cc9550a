/**
 * Argument roles of common programs that read or write files: which options take a value, which
 * values are files, and what the positional words are. Programs with a grammar of their own (tar,
 * dd, git, chmod, compressors, archives) are in special-arguments.ts; a program in neither is not
 * modelled (its arguments get only the facts layer's deny-only existence check).
 */
import type { TreeRead } from './types.js';
import type { Word } from './words.js';

export type FileAccess = 'read' | 'write' | 'delete';

export interface FileArgument {
  readonly word: Word;
  readonly access: FileAccess;
  /** A directory (as written, relative to the cwd) the word is relative to: `tar -C DIR`, `git -C DIR`. */
  readonly base?: Word;
  /** A directory is read with everything under it (`grep -r`, `rg`). */
  readonly recursive?: TreeRead;
}

export interface FileRoles {
  readonly files: readonly FileArgument[];
  /** Why the files cannot be known from the line (a list file, a program that is run, supplied names). */
  readonly unknown: readonly string[];
}

export type Layout =
  /** Every positional (after `lead` non-file words) is used with these accesses. */
  | { readonly kind: 'each'; readonly access: readonly FileAccess[] }
  /** The first positional is read, the second (if any) written (`uniq IN OUT`, `xxd IN OUT`). */
  | { readonly kind: 'in-out' }
  /** Sources then a destination (`cp a b dir`); with a target-directory option every positional is a source. */
  | { readonly kind: 'copy'; readonly sources: readonly FileAccess[] }
  /** Only the first positional is a file (`source FILE ARGS…`); the rest are its arguments. */
  | { readonly kind: 'first'; readonly access: FileAccess }
  /** No positional is a file (`echo`, `ls`: names only). */
  | { readonly kind: 'none' };

export interface RoleSpec {
  readonly layout: Layout;
  /** Spellings that take a value (non-file values; file values are listed in `files`). */
  readonly valued?: readonly string[];
  /** Options whose value is a file, with its access. */
  readonly files?: Readonly<Record<string, FileAccess>>;
  /** Spellings whose value may only be attached (`sed -i.bak`). */
  readonly attachedOnly?: readonly string[];
  readonly twoValues?: readonly string[];
  /** How many leading positionals are not files (a pattern, script, filter, mode). */
  readonly lead?: number;
  /** Options that remove the leading positional (`grep -e PAT`, `sed -f FILE`, `chmod --reference`). */
  readonly leadGivenBy?: readonly string[];
  /** Options after which positionals are written in place as well (`sed -i`). */
  readonly inPlace?: readonly string[];
  /** With one of these and no file, the program reads its working directory recursively. */
  readonly recursive?: readonly string[];
  /** Reads its working directory when it has no file at all, and every directory argument whole (`rg`). */
  readonly cwdByDefault?: boolean;
  /** Options with which a recursive read follows symlinks inside the tree (`grep -R`, `rg -L`). */
  readonly followOptions?: readonly string[];
  /** Options with which it reads hidden entries too; absent: it always does (grep). */
  readonly hiddenOptions?: readonly string[];
  /** Options whose files are not known from the line (a list of names in a file, a program to run). */
  readonly unknownFiles?: readonly string[];
  /** Options with which a `copy` layout only creates its positionals as directories (`install -d`). */
  readonly makesDirectories?: readonly string[];
  /** Target-directory options of a `copy` layout. */
  readonly targetDirectory?: readonly string[];
  /** Positionals that look like `NAME=value` are assignments, not files (awk). */
  readonly assignments?: boolean;
  readonly plusWords?: boolean;
  /** The leading positional (or `-e` values) is a script that may open files itself. */
  readonly script?: 'sed' | 'awk';
}

const READ_ALL: Layout = { kind: 'each', access: ['read'] };
const WRITE_ALL: Layout = { kind: 'each', access: ['write'] };
const DELETE_ALL: Layout = { kind: 'each', access: ['delete'] };
const NONE: Layout = { kind: 'none' };

const HEAD_TAIL = ['-n', '--lines', '-c', '--bytes', '-s', '--sleep-interval', '--pid', '--max-unchanged-stats'];
const CHECKSUM: RoleSpec = { layout: READ_ALL };
const GREP: RoleSpec = {
  layout: READ_ALL,
  lead: 1,
  leadGivenBy: ['-e', '--regexp', '-f', '--file'],
  valued: ['-e', '--regexp', '-m', '--max-count', '-A', '--after-context', '-B', '--before-context', '-C', '--context', '-d', '--directories', '-D', '--devices', '--include', '--exclude', '--exclude-dir', '--label', '--binary-files', '--group-separator'],
  files: { '-f': 'read', '--file': 'read', '--exclude-from': 'read' },
  recursive: ['-r', '--recursive', '-R', '--dereference-recursive'],
  followOptions: ['-R', '--dereference-recursive'],
};
const AWK: RoleSpec = {
  layout: READ_ALL,
  lead: 1,
  leadGivenBy: ['-f', '--file', '-E', '--exec', '-e', '--source'],
  valued: ['-e', '--source', '-v', '--assign', '-F', '--field-separator', '-l', '--load', '-W'],
  files: { '-f': 'read', '--file': 'read', '-E': 'read', '--exec': 'read', '-i': 'read', '--include': 'read' },
  attachedOnly: ['-o', '--pretty-print', '-p', '--profile', '-d', '--dump-variables'],
  assignments: true,
  script: 'awk',
};
const COMPRESS_ONLY_READ: RoleSpec = { layout: READ_ALL };

const SPECS: Readonly<Record<string, RoleSpec>> = {
  cat: { layout: READ_ALL },
  tac: { layout: READ_ALL, valued: ['-s', '--separator'] },
  nl: { layout: READ_ALL, valued: ['-b', '-d', '-f', '-h', '-i', '-l', '-n', '-s', '-v', '-w', '--body-numbering', '--section-delimiter', '--footer-numbering', '--header-numbering', '--line-increment', '--join-blank-lines', '--number-format', '--number-separator', '--starting-line-number', '--number-width'] },
  od: { layout: READ_ALL, valued: ['-A', '--address-radix', '-j', '--skip-bytes', '-N', '--read-bytes', '-S', '--strings', '-t', '--format', '--endian'], attachedOnly: ['-w', '--width'] },
  hexdump: { layout: READ_ALL, valued: ['-e', '-n', '-s', '--format', '--length', '--skip', '--color'], files: { '-f': 'read', '--format-file': 'read' } },
  hd: { layout: READ_ALL, valued: ['-e', '-n', '-s'], files: { '-f': 'read' } },
  xxd: { layout: { kind: 'in-out' }, valued: ['-c', '-cols', '-g', '-groupsize', '-l', '-len', '-o', '-offset', '-s', '-seek', '-n', '-name'] },
  base64: { layout: READ_ALL, valued: ['-w', '--wrap'] },
  base32: { layout: READ_ALL, valued: ['-w', '--wrap'] },
  basenc: { layout: READ_ALL, valued: ['-w', '--wrap'] },
  strings: { layout: READ_ALL, valued: ['-n', '--bytes', '-t', '--radix', '-e', '--encoding', '-T', '--target', '-s', '--output-separator'] },
  wc: { layout: READ_ALL, unknownFiles: ['--files0-from'] },
  less: { layout: READ_ALL, valued: ['-b', '-h', '-j', '-p', '-P', '-t', '-x', '-y', '-z', '-#', '-D'], files: { '-o': 'write', '-O': 'write', '--log-file': 'write', '--LOG-FILE': 'write', '-k': 'read', '-T': 'read' }, plusWords: true },
  more: { layout: READ_ALL, valued: ['-n', '--lines'], plusWords: true },
  head: { layout: READ_ALL, valued: HEAD_TAIL },
  tail: { layout: READ_ALL, valued: HEAD_TAIL, plusWords: true },
  sort: {
    layout: READ_ALL,
    valued: ['-k', '--key', '-t', '--field-separator', '-T', '--temporary-directory', '-S', '--buffer-size', '--parallel', '--batch-size'],
    files: { '-o': 'write', '--output': 'write', '--random-source': 'read' },
    unknownFiles: ['--files0-from', '--compress-program'],
  },
  uniq: { layout: { kind: 'in-out' }, valued: ['-f', '--skip-fields', '-s', '--skip-chars', '-w', '--check-chars'], attachedOnly: ['--all-repeated', '--group'] },
  cut: { layout: READ_ALL, valued: ['-b', '--bytes', '-c', '--characters', '-f', '--fields', '-d', '--delimiter', '--output-delimiter'] },
  paste: { layout: READ_ALL, valued: ['-d', '--delimiters'] },
  fold: { layout: READ_ALL, valued: ['-w', '--width'] },
  rev: { layout: READ_ALL },
  comm: { layout: READ_ALL, valued: ['--output-delimiter'] },
  join: { layout: READ_ALL, valued: ['-a', '-e', '-j', '-o', '-t', '-v', '-1', '-2'] },
  cmp: { layout: READ_ALL, valued: ['-i', '--ignore-initial', '-n', '--bytes'] },
  diff: {
    layout: READ_ALL,
    valued: ['-C', '--context', '-U', '--unified', '-D', '--ifdef', '-F', '--show-function-line', '-I', '--ignore-matching-lines', '-L', '--label', '-S', '--starting-file', '-x', '--exclude', '-W', '--width', '--tabsize', '--horizon-lines', '--color', '--palette'],
    files: { '-X': 'read', '--exclude-from': 'read', '--from-file': 'read', '--to-file': 'read' },
  },
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: {
    layout: READ_ALL,
    lead: 1,
    leadGivenBy: ['-e', '--regexp', '-f', '--file', '--files', '--type-list'],
    valued: ['-e', '--regexp', '-g', '--glob', '--iglob', '-t', '--type', '-T', '--type-not', '--type-add', '--type-clear', '-m', '--max-count', '-A', '--after-context', '-B', '--before-context', '-C', '--context', '-j', '--threads', '-M', '--max-columns', '-E', '--encoding', '-r', '--replace', '-d', '--max-depth', '--max-filesize', '--path-separator', '--colors', '--color', '--context-separator', '--field-match-separator', '--field-context-separator', '--dfa-size-limit', '--regex-size-limit', '--engine', '--sort', '--sortr', '--pre-glob', '--hostname-bin', '--hyperlink-format'],
    files: { '-f': 'read', '--file': 'read', '--ignore-file': 'read' },
    unknownFiles: ['--pre'],
    cwdByDefault: true,
    followOptions: ['-L', '--follow'],
    // `-uu` (twice) and `-uuu` also read hidden entries: any `-u` counts (over-reading is safe).
    hiddenOptions: ['--hidden', '-.', '-u', '--unrestricted'],
  },
  sed: {
    layout: READ_ALL,
    lead: 1,
    leadGivenBy: ['-e', '--expression', '-f', '--file'],
    valued: ['-e', '--expression', '-l', '--line-length'],
    files: { '-f': 'read', '--file': 'read' },
    attachedOnly: ['-i', '--in-place'],
    inPlace: ['-i', '--in-place'],
    script: 'sed',
  },
  awk: AWK,
  gawk: AWK,
  mawk: AWK,
  nawk: AWK,
  jq: {
    layout: READ_ALL,
    lead: 1,
    leadGivenBy: ['-f', '--from-file'],
    valued: ['--indent', '-L'],
    twoValues: ['--arg', '--argjson', '--slurpfile', '--rawfile'],
    files: { '-f': 'read', '--from-file': 'read', '--rawfile': 'read', '--slurpfile': 'read' },
    unknownFiles: ['--args', '--jsonargs'],
  },
  source: { layout: { kind: 'first', access: 'read' } },
  '.': { layout: { kind: 'first', access: 'read' } },
  cp: { layout: { kind: 'copy', sources: ['read'] }, valued: ['-S', '--suffix'], attachedOnly: ['--backup', '--reflink', '--preserve', '--no-preserve', '--sparse', '--update'], targetDirectory: ['-t', '--target-directory'] },
  mv: { layout: { kind: 'copy', sources: ['read', 'delete'] }, valued: ['-S', '--suffix'], attachedOnly: ['--backup', '--update'], targetDirectory: ['-t', '--target-directory'] },
  install: { layout: { kind: 'copy', sources: ['read'] }, valued: ['-m', '--mode', '-o', '--owner', '-g', '--group', '-S', '--suffix', '-Z'], targetDirectory: ['-t', '--target-directory'], makesDirectories: ['-d', '--directory'] },
  rsync: {
    layout: { kind: 'copy', sources: ['read'] },
    valued: ['--rsync-path', '--exclude', '--include', '-f', '--filter', '-T', '--temp-dir', '--partial-dir', '--backup-dir', '--suffix', '--chmod', '--chown', '--usermap', '--groupmap', '--max-size', '--min-size', '--max-delete', '--bwlimit', '--timeout', '--contimeout', '--port', '-B', '--block-size', '--out-format', '--log-file-format', '--iconv', '--modify-window', '-M', '--remote-option', '--checksum-choice', '--compress-choice', '--compress-level', '--info', '--debug', '--sockopts', '--outbuf', '--stop-after', '--stop-at'],
    files: { '--exclude-from': 'read', '--include-from': 'read', '--log-file': 'write', '--password-file': 'read', '--compare-dest': 'read', '--copy-dest': 'read', '--link-dest': 'read', '--write-batch': 'write', '--only-write-batch': 'write', '--read-batch': 'read' },
    unknownFiles: ['-e', '--rsh', '--files-from'],
  },
  scp: { layout: { kind: 'copy', sources: ['read'] }, valued: ['-c', '-F', '-i', '-J', '-l', '-o', '-P', '-X'], unknownFiles: ['-S'] },
  md5sum: CHECKSUM, sha1sum: CHECKSUM, sha224sum: CHECKSUM, sha256sum: CHECKSUM, sha384sum: CHECKSUM, sha512sum: CHECKSUM, b2sum: CHECKSUM, cksum: CHECKSUM, sum: CHECKSUM, shasum: { layout: READ_ALL, valued: ['-a', '--algorithm'] },
  file: { layout: READ_ALL, valued: ['-e', '--exclude', '-F', '--separator', '-P', '--parameter'], files: { '-m': 'read', '--magic-file': 'read' }, unknownFiles: ['-f', '--files-from'] },
  stat: { layout: READ_ALL, valued: ['-c', '--format', '--printf'] },
  touch: { layout: WRITE_ALL, valued: ['-d', '--date', '-t', '-r', '--reference', '--time'] },
  truncate: { layout: WRITE_ALL, valued: ['-s', '--size', '-r', '--reference', '-o'] },
  tee: { layout: WRITE_ALL, attachedOnly: ['--output-error'] },
  mkdir: { layout: WRITE_ALL, valued: ['-m', '--mode'], attachedOnly: ['--context'] },
  rmdir: { layout: DELETE_ALL },
  rm: { layout: DELETE_ALL, attachedOnly: ['--interactive'] },
  unlink: { layout: DELETE_ALL },
  shred: { layout: { kind: 'each', access: ['write', 'delete'] }, valued: ['-n', '--iterations', '-s', '--size'], files: { '--random-source': 'read' }, attachedOnly: ['--remove'] },
  // Names only: these never open the files they are given.
  echo: { layout: NONE },
  printf: { layout: NONE },
  ls: { layout: NONE },
  test: { layout: NONE },
  '[': { layout: NONE },
  '[[': { layout: NONE },
  true: { layout: NONE },
  false: { layout: NONE },
  basename: { layout: NONE },
  dirname: { layout: NONE },
  which: { layout: NONE },
  type: { layout: NONE },
  pwd: { layout: NONE },
  bzcat: COMPRESS_ONLY_READ, zcat: COMPRESS_ONLY_READ, xzcat: COMPRESS_ONLY_READ, zstdcat: COMPRESS_ONLY_READ,
};

const SPEC_MAP: ReadonlyMap<string, RoleSpec> = new Map(Object.entries(SPECS));

/** The role spec of a program (a Map: `constructor` is an ordinary program name). */
export function roleSpec(program: string): RoleSpec | undefined {
  return SPEC_MAP.get(program);
}
