/**
 * Argument roles of programs with a grammar of their own: tar (old-style letters, modes, `-C`
 * ordering), dd operands, chmod/chown modes, ln, compressors,
 * zip/unzip, git (git-file-arguments.ts), and the files curl, wget and openssl read or write through options.
 * 'partial' programs report what they know; their other words still get the deny-only check.
 */
import { hasOption, parseArguments, part, within, type OptionGrammar, type OptionUse, type ParsedArguments, type PositionalUse } from './argument-grammar.js';
import type { FileAccess, FileArgument, FileRoles } from './argument-roles.js';
import { shapeOf } from './command-shape.js';
import { gitFiles } from './git-file-arguments.js';
import type { Word } from './words.js';

type Handler = (args: readonly Word[], program: string) => FileRoles;

const COMPRESSORS: Readonly<Record<string, { readonly suffix: string; readonly decompress: boolean; readonly keeps: boolean }>> = {
  gzip: { suffix: '.gz', decompress: false, keeps: false },
  gunzip: { suffix: '.gz', decompress: true, keeps: false },
  bzip2: { suffix: '.bz2', decompress: false, keeps: false },
  bunzip2: { suffix: '.bz2', decompress: true, keeps: false },
  xz: { suffix: '.xz', decompress: false, keeps: false },
  unxz: { suffix: '.xz', decompress: true, keeps: false },
  zstd: { suffix: '.zst', decompress: false, keeps: true },
  unzstd: { suffix: '.zst', decompress: true, keeps: true },
};

const HANDLERS: Readonly<Record<string, Handler>> = {
  tar: tarFiles,
  dd: ddFiles,
  ln: lnFiles,
  chmod: modeFiles,
  chown: modeFiles,
  chgrp: modeFiles,
  zip: zipFiles,
  unzip: unzipFiles,
  git: gitFiles,
  curl: curlFiles,
  wget: curlFiles,
  openssl: opensslFiles,
  find: () => ({ files: [], unknown: [] }), // roots are listed, not opened; -exec / -fprint are analysed by find-command.ts
  ...Object.fromEntries(Object.keys(COMPRESSORS).map((program) => [program, compressorFiles])),
};

const HANDLER_MAP: ReadonlyMap<string, Handler> = new Map(Object.entries(HANDLERS));
const PARTIAL = new Set(['git', 'curl', 'wget', 'openssl']);

/** Whether `program` has a grammar here that covers every argument that could name a file. */
export function hasCompleteSpecialRoles(program: string): boolean {
  return HANDLER_MAP.has(program) && !PARTIAL.has(program);
}

export function specialFileArguments(program: string, args: readonly Word[]): FileRoles | undefined {
  return HANDLER_MAP.get(program)?.(args, program);
}

const grammar = (valued: readonly string[], extra: Partial<OptionGrammar> = {}): OptionGrammar => ({ valued: new Set(valued), ...extra });

const TAR_VALUED = ['-b', '-C', '-f', '-F', '-g', '-H', '-I', '-K', '-L', '-N', '-T', '-V', '-X', '--file', '--directory', '--blocking-factor', '--listed-incremental', '--format', '--use-compress-program', '--starting-file', '--tape-length', '--newer', '--after-date', '--files-from', '--label', '--exclude-from', '--exclude', '--info-script', '--new-volume-script', '--to-command', '--rsh-command', '--index-file', '--owner', '--group', '--mode', '--mtime', '--transform', '--xform', '--strip-components', '--checkpoint-action', '--volno-file', '--record-size', '--suffix', '--backup'];
const TAR_RUNS = ['-F', '-I', '--info-script', '--new-volume-script', '--use-compress-program', '--to-command', '--rsh-command', '--checkpoint-action', '-T', '--files-from'];
const TAR_MODES: Readonly<Record<string, string>> = {
  '-c': 'c', '--create': 'c', '-r': 'r', '--append': 'r', '-u': 'u', '--update': 'u', '-A': 'A', '--catenate': 'A', '--concatenate': 'A',
  '-x': 'x', '--extract': 'x', '--get': 'x', '-t': 't', '--list': 't', '-d': 'd', '--diff': 'd', '--compare': 'd', '--delete': 'D',
};

/** `tar czf x.tgz -C dir member…`: old-style letters take their values from the next words in order. */
function tarFiles(args: readonly Word[]): FileRoles {
  const words = [...args];
  const first = words[0];
  if (first && !first.dynamic && /^[A-Za-z]+$/.test(first.text)) {
    const valued = new Set(TAR_VALUED);
    const expanded: Word[] = [];
    let next = 1;
    for (const letter of first.text) {
      expanded.push({ ...first, text: `-${letter}` });
      if (valued.has(`-${letter}`) && next < words.length) expanded.push(words[next++]!);
    }
    words.splice(0, next, ...expanded);
  }
  const parsed = parseArguments(words, grammar(TAR_VALUED, { fileLongOptions: ['--file', '--directory', '--listed-incremental', '--index-file', '--exclude-from', '--files-from', '--to-command', '--use-compress-program', '--info-script', '--new-volume-script', '--rsh-command', '--checkpoint-action'] }));
  const mode = parsed.options.map((option) => TAR_MODES[option.name]).find((m) => m !== undefined);
  const unknown: string[] = parsed.options.filter((option) => TAR_RUNS.includes(option.name) || (option.name === '--checkpoint-action' && option.value?.text.startsWith('exec')))
    .map((option) => `tar ${option.name} runs a program or reads member names from a file`);
  const files: FileArgument[] = [];
  const archive = parsed.options.find((option) => (option.name === '-f' || option.name === '--file') && option.value)?.value;
  const writesArchive = mode === 'c' || mode === 'r' || mode === 'u' || mode === 'A' || mode === 'D';
  if (archive) files.push({ word: archive, access: writesArchive ? 'write' : 'read' });
  if (archive && writesArchive && mode !== 'c') files.push({ word: archive, access: 'read' });
  for (const option of parsed.options) {
    const access: FileAccess | undefined = option.name === '-X' || option.name === '--exclude-from' ? 'read'
      : option.name === '-g' || option.name === '--listed-incremental' || option.name === '--index-file' ? 'write' : undefined;
    if (access && option.value) files.push({ word: option.value, access });
  }
  const toStdout = hasOption(parsed, ['-O', '--to-stdout']);
  if (mode === 'x' && !toStdout) unknown.push('tar extracts files whose names are in the archive');
  if (mode === 'c' || mode === 'r' || mode === 'u' || mode === 'A' || mode === 'd') {
    for (const use of parsed.positionals) {
      const base = directoryBefore(parsed.options, use.at);
      files.push({ word: use.word, access: 'read', ...(base ? { base } : {}) });
    }
  }
  if (mode === undefined) unknown.push('tar without a known mode');
  return { files, unknown };
}

/** The directory the `-C DIR` options before position `at` lead to (each relative to the one before). */
function directoryBefore(options: readonly OptionUse[], at: number): Word | undefined {
  let base: Word | undefined;
  for (const option of options) {
    if (option.at < at && (option.name === '-C' || option.name === '--directory') && option.value) base = within(base, option.value);
  }
  return base;
}


function ddFiles(args: readonly Word[]): FileRoles {
  const files: FileArgument[] = [];
  for (const word of args) {
    if (word.text.startsWith('if=')) files.push({ word: part(word, 3), access: 'read' });
    if (word.text.startsWith('of=')) files.push({ word: part(word, 3), access: 'write' });
  }
  return { files, unknown: [] };
}

/** `ln TARGET LINK`, `ln TARGET… DIR`, `ln TARGET` (a link named basename(TARGET) in the cwd). */
function lnFiles(args: readonly Word[]): FileRoles {
  const parsed = parseArguments(args, grammar(['-S', '--suffix', '-t', '--target-directory'], { attachedOnly: new Set(['--backup']) }));
  const files = copyFiles(parsed, parsed.positionals, ['read'], ['-t', '--target-directory']);
  const only = parsed.positionals.length === 1 && !hasOption(parsed, ['-t', '--target-directory']) ? parsed.positionals[0]!.word : undefined;
  if (only) files.push({ word: { ...only, text: only.text.replace(/\/+$/, '').split('/').pop() ?? '' }, access: 'write' });
  return { files, unknown: [] };
}

/** `chmod MODE FILE…` (`chmod -w f`: a mode that looks like an option), `chown OWNER FILE…`, `--reference=R FILE…`. */
function modeFiles(args: readonly Word[], program: string): FileRoles {
  const modeOption = program === 'chmod' ? args.find((word) => /^-[rwxXstugoa=+,0-7-]*$/.test(word.text) && /[^cfvR-]/.test(word.text.slice(1))) : undefined;
  const rest = modeOption ? args.filter((word) => word !== modeOption) : args;
  const parsed = parseArguments(rest, grammar(['--reference', '--from']));
  const lead = modeOption || hasOption(parsed, ['--reference']) ? 0 : 1;
  return { files: parsed.positionals.slice(lead).map((use) => ({ word: use.word, access: 'write' as const })), unknown: [] };
}

function compressorFiles(args: readonly Word[], program: string): FileRoles {
  const profile = COMPRESSORS[program]!;
  const parsed = parseArguments(args, grammar(['-S', '--suffix', '-F', '--format', '-C', '--check', '-M', '--memlimit', '-T', '--threads', '-o', '-D', '--patch-from', '--output-dir-flat'], { attachedOnly: new Set(['-T']) }));
  const files: FileArgument[] = [];
  const unknown: string[] = [];
  for (const option of parsed.options) {
    if (option.value && option.name === '-o') files.push({ word: option.value, access: 'write' });
    if (option.value && (option.name === '-D' || option.name === '--patch-from')) files.push({ word: option.value, access: 'read' });
    if (option.name === '--files' || option.name === '--files0' || option.name === '--output-dir-flat') unknown.push(`${option.name} names files not known from the line`);
  }
  const inPlace = !hasOption(parsed, ['-c', '--stdout', '--to-stdout', '-t', '--test', '-l', '--list', '-o']);
  const decompress = profile.decompress || hasOption(parsed, ['-d', '--decompress', '--uncompress']);
  const keeps = profile.keeps ? !hasOption(parsed, ['--rm']) : hasOption(parsed, ['-k', '--keep']);
  const suffix = parsed.options.find((option) => (option.name === '-S' || option.name === '--suffix') && option.value)?.value?.text ?? profile.suffix;
  for (const { word } of parsed.positionals) {
    files.push({ word, access: 'read' });
    if (!inPlace) continue;
    if (!keeps) files.push({ word, access: 'delete' });
    if (!decompress) files.push({ word: { ...word, text: word.text + suffix }, access: 'write' });
    else if (word.text.endsWith(suffix)) files.push({ word: { ...word, text: word.text.slice(0, -suffix.length) }, access: 'write' });
  }
  if (parsed.options.some((option) => option.name === '-r' || option.name === '--recursive')) unknown.push('compresses the files of a directory');
  return { files, unknown };
}

function zipFiles(args: readonly Word[]): FileRoles {
  const parsed = parseArguments(args, grammar(['-b', '-n', '-t', '-tt', '-Z', '-P', '-s', '-O', '--output-file', '-x', '-i', '--temp-path', '--password']));
  const unknown = parsed.options.filter((option) => ['-@', '-TT', '--unzip-command', '--names-stdin'].includes(option.name)).map((option) => `zip ${option.name} runs a program or reads names from standard input`);
  const files: FileArgument[] = [];
  const [archive, ...members] = parsed.positionals;
  const output = parsed.options.find((option) => (option.name === '-O' || option.name === '--output-file') && option.value)?.value;
  if (archive) files.push({ word: archive.word, access: output ? 'read' : 'write' });
  if (output) files.push({ word: output, access: 'write' });
  for (const use of members) files.push({ word: use.word, access: 'read' });
  return { files, unknown };
}

function unzipFiles(args: readonly Word[]): FileRoles {
  const parsed = parseArguments(args, grammar(['-d', '-P', '-x']));
  const archive = parsed.positionals[0];
  const files: FileArgument[] = archive ? [{ word: archive.word, access: 'read' }] : [];
  const onlyLooks = hasOption(parsed, ['-l', '-v', '-t', '-z', '-Z', '-p', '-c']);
  return { files, unknown: onlyLooks ? [] : ['unzip extracts files whose names are in the archive'] };
}

/** curl / wget: files written by output options (as before) and read by upload/data options. */
function curlFiles(args: readonly Word[], program: string): FileRoles {
  const shape = shapeOf(program, args.map((word) => word.text));
  const writeKeys = program === 'curl' ? ['output', 'dump-header', 'cookie-jar', '--output-dir', 'trace', '--trace-ascii', '--stderr', '--etag-save'] : ['output-document', 'output-file', 'append-output', 'directory-prefix', '--save-cookies'];
  const readKeys = program === 'curl' ? ['upload-file', 'config', '--netrc-file', '--etag-compare'] : ['input-file', 'post-file', '--body-file', '--load-cookies'];
  const files: FileArgument[] = [];
  const literal = (text: string): Word => ({ text, dynamic: args.some((word) => word.dynamic && word.text.includes(text)), glob: false, tildeUnresolved: text.startsWith('~'), history: false });
  for (const use of shape.options) {
    if (use.value === undefined || use.value === '-' || use.value === '') continue;
    if (use.keys.some((key) => writeKeys.includes(key))) files.push({ word: literal(use.value), access: 'write' });
    if (use.keys.some((key) => readKeys.includes(key))) files.push({ word: literal(use.value), access: 'read' });
    // `-d @file`, `-F name=@file`, `-F name=<file`: the file's content is sent.
    const at = program === 'curl' && (use.keys.includes('data') || use.keys.includes('form')) ? /(?:^|=)[@<]([^;]+)/.exec(use.value) : null;
    if (at && at[1] !== '-') files.push({ word: literal(at[1]!), access: 'read' });
  }
  return { files, unknown: [] };
}

function opensslFiles(args: readonly Word[]): FileRoles {
  const reads = ['-in', '-inkey', '-key', '-kfile', '-signkey', '-certfile', '-CAfile', '-cert', '-passin'];
  const writes = ['-out', '-keyout'];
  const files: FileArgument[] = [];
  for (let i = 0; i + 1 < args.length; i++) {
    const text = args[i]!.text;
    const value = args[i + 1]!;
    const path = text === '-passin' ? (value.text.startsWith('file:') ? part(value, 5) : undefined) : value;
    if (path && reads.includes(text)) files.push({ word: path, access: 'read' });
    if (writes.includes(text)) files.push({ word: value, access: 'write' });
  }
  return { files, unknown: [] };
}

/**
 * `cp SRC… DEST`: DEST may be a file or a directory, so both DEST and DEST/basename(SRC) are written
 * (`cp .bashrc ~` writes ~/.bashrc). Remote `host:path` words (scp, rsync) are not local files.
 */
export function copyFiles(parsed: ParsedArguments, positionals: readonly PositionalUse[], sources: readonly FileAccess[], targetOptions: readonly string[]): FileArgument[] {
  const files: FileArgument[] = [];
  const local = positionals.filter((use) => !isRemote(use.word.text));
  const target = parsed.options.find((option) => targetOptions.includes(option.name) && option.value)?.value;
  const destination = target ?? (positionals.length >= 2 ? positionals[positionals.length - 1]!.word : undefined);
  const sourceWords = local.map((use) => use.word).filter((word) => word !== destination);
  for (const word of sourceWords) for (const access of sources) files.push({ word, access });
  if (!destination || isRemote(destination.text)) return files;
  files.push({ word: destination, access: 'write' });
  for (const use of positionals) {
    if (use.word === destination) continue;
    const name = use.word.text.replace(/^[^/]*:/, '').replace(/\/+$/, '').split('/').pop() ?? '';
    if (name !== '' && name !== '.' && name !== '..') files.push({ word: { ...use.word, text: name }, access: 'write', base: destination });
  }
  return files;
}

function isRemote(text: string): boolean {
  return /^[^/]*:/.test(text) || text.startsWith('rsync://');
}

