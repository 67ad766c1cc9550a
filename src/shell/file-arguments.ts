/**
 * Files a command opens through its arguments (`cat .env`, `cp a b`, `sort -o f`, `git show
 * HEAD:.env`), from the argument roles of argument-roles.ts and special-arguments.ts. They are
 * reported as Redirections with the program as operator, so path rules see them as they see a
 * redirect: an allow rule for `cat` does not allow reading ~/.ssh/id_rsa.
 */
import { hasOption, parseArguments, type OptionGrammar, type ParsedArguments } from './argument-grammar.js';
import { roleSpec, type FileAccess, type FileArgument, type FileRoles, type RoleSpec } from './argument-roles.js';
import type { TreeRead } from './types.js';
import type { AnalysisCollector, Scope } from './collector.js';
import { programSpec } from './option-specs.js';
import { isHarmlessDevice, kernelPathOf, resolvePath } from './paths.js';
import { copyFiles, hasCompleteSpecialRoles, specialFileArguments } from './special-arguments.js';
import type { Word } from './words.js';

/**
 * Scripts that may open files or run commands: sed `w`/`W`/`r`/`R`/`e` commands and the `w`/`e`
 * flags of `s`; awk `system`, `getline`, pipes, output redirection, `@load`/`@include`. Loose on
 * purpose (`s/read/x/` counts): a false hit only asks.
 */
const SCRIPT_OPENS_FILES = {
  sed: /(?:^|[\s;{}!\d$/,])[wWrRe]/,
  awk: /system|getline|[|>]|@load|@include/,
} as const;

const CWD: Word = { text: '.', dynamic: false, glob: false, tildeUnresolved: false, history: false };

/**
 * Whether every argument of `program` that could name a file has a modelled role. Others (git,
 * curl, unknown programs) report what they know and their remaining words get the facts layer's
 * deny-only existence check.
 */
export function hasCompleteArgumentRoles(program: string): boolean {
  return roleSpec(program) !== undefined || hasCompleteSpecialRoles(program);
}

/** The files `program` opens through `args` (the words after the program); undefined when not modelled at all. */
function fileArguments(program: string, args: readonly Word[]): FileRoles | undefined {
  const spec = roleSpec(program);
  if (spec) return fromSpec(program, spec, args);
  return specialFileArguments(program, args);
}

const grammars = new Map<string, OptionGrammar>();

/** The spec's option grammar, with the valued options option-specs.ts knows for the program. */
function grammarOf(program: string, spec: RoleSpec): OptionGrammar {
  let grammar = grammars.get(program);
  if (!grammar) {
    grammar = {
      // An attached-only option is valued too: the rest of its cluster is its value (`sed -i.bak`).
      valued: new Set([
        ...programSpec(program).valued, ...(spec.valued ?? []), ...Object.keys(spec.files ?? {}),
        ...(spec.targetDirectory ?? []), ...(spec.twoValues ?? []), ...(spec.attachedOnly ?? []),
      ]),
      attachedOnly: new Set(spec.attachedOnly ?? []),
      twoValues: new Set(spec.twoValues ?? []),
      // Options naming files or a program not known from the line count in any abbreviation too (`wc --files0=LIST`).
      fileLongOptions: [...Object.keys(spec.files ?? {}), ...(spec.unknownFiles ?? [])].filter((name) => name.startsWith('--')),
      plusWords: !!spec.plusWords,
    };
    grammars.set(program, grammar);
  }
  return grammar;
}

/** Off only inside `withoutNoFileShortcut` (the slow path the property test holds the shortcut to). */
let shortcut = true;

/** `work` with fromSpec's shortcut bypassed: the reference test/shell/file-arguments-shortcut.test.ts compares with. */
export function withoutNoFileShortcut<T>(work: () => T): T {
  shortcut = false;
  try {
    return work();
  } finally {
    shortcut = true;
  }
}

const NO_ROLES: FileRoles = Object.freeze({ files: Object.freeze([]), unknown: Object.freeze([]) });

function fromSpec(program: string, spec: RoleSpec, args: readonly Word[]): FileRoles {
  // No positional file, no file option, no script (`echo`, `ls`, `test`): every branch below finds nothing.
  if (shortcut && spec.layout.kind === 'none' && !spec.files && !spec.unknownFiles && !spec.script) return NO_ROLES;
  const parsed = parseArguments(args, grammarOf(program, spec));
  const files: FileArgument[] = [];
  const unknown: string[] = [];
  for (const option of parsed.options) {
    const access = spec.files && Object.hasOwn(spec.files, option.name) ? spec.files[option.name] : undefined;
    const value = spec.twoValues?.includes(option.name) ? option.value2 : option.value;
    if (access && value) files.push({ word: value, access });
    if (spec.unknownFiles?.includes(option.name)) unknown.push(`${option.name} names files or a program not known from the line`);
  }
  const lead = spec.leadGivenBy && hasOption(parsed, spec.leadGivenBy) ? 0 : (spec.lead ?? 0);
  if (spec.script) {
    const scripts = [...parsed.positionals.slice(0, lead).map((use) => use.word), ...parsed.options.filter((o) => ['-e', '--expression', '--source'].includes(o.name)).flatMap((o) => (o.value ? [o.value] : []))];
    if (scripts.some((word) => word.dynamic || SCRIPT_OPENS_FILES[spec.script!].test(word.text))) unknown.push('its script may read or write other files or run commands');
  }
  const leading = lead === 0 ? parsed.positionals : parsed.positionals.slice(lead);
  const positionals = spec.assignments ? leading.filter((use) => !isAssignment(use.word)) : leading;
  const layout = spec.layout;
  switch (layout.kind) {
    case 'none':
      break;
    case 'each': {
      const accesses: readonly FileAccess[] = spec.inPlace && hasOption(parsed, spec.inPlace) ? [...layout.access, 'write'] : layout.access;
      const tree = treeRead(spec, parsed);
      for (const use of positionals) for (const access of accesses) files.push({ word: use.word, access, ...(tree && access === 'read' ? { recursive: tree } : {}) });
      if (positionals.length === 0 && tree) files.push({ word: CWD, access: 'read', recursive: tree });
      break;
    }
    case 'in-out':
      if (positionals[0]) files.push({ word: positionals[0].word, access: 'read' });
      if (positionals[1]) files.push({ word: positionals[1].word, access: 'write' });
      break;
    case 'first':
      if (positionals[0]) files.push({ word: positionals[0].word, access: layout.access });
      break;
    case 'copy':
      if (spec.makesDirectories && hasOption(parsed, spec.makesDirectories)) files.push(...positionals.map((use) => ({ word: use.word, access: 'write' as const })));
      else files.push(...copyFiles(parsed, positionals, layout.sources, spec.targetDirectory ?? []));
      break;
  }
  return { files, unknown };
}

/** How `grep -r` / `rg` read their directory arguments (undefined: they read no tree). */
function treeRead(spec: RoleSpec, parsed: ParsedArguments): TreeRead | undefined {
  if (!spec.cwdByDefault && !(spec.recursive && isRecursive(parsed, spec.recursive))) return undefined;
  return { follow: hasOption(parsed, spec.followOptions ?? []), hidden: !spec.hiddenOptions || hasOption(parsed, spec.hiddenOptions) };
}

function isRecursive(parsed: ParsedArguments, options: readonly string[]): boolean {
  return parsed.options.some((option) => options.includes(option.name)
    || ((option.name === '-d' || option.name === '--directories') && option.value?.text === 'recurse'));
}

function isAssignment(word: Word): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text);
}

/**
 * Records the file arguments of one command as Redirections. A file known only at run time (`cat
 * $F`, names supplied by xargs / find -exec) makes the line unresolvable: the file is unknown.
 */
export function recordFileArguments(
  program: string, args: readonly Word[], suppliedArguments: boolean, scope: Scope, collector: AnalysisCollector,
): void {
  if (!hasCompleteArgumentRoles(program)) recordGlobArguments(program, args, scope, collector);
  const roles = fileArguments(program, args);
  if (!roles) return;
  for (let i = 0; i < roles.unknown.length; i++) collector.unresolvable(`${program}: ${roles.unknown[i]!}`);
  if (suppliedArguments && hasCompleteArgumentRoles(program) && roleSpec(program)?.layout.kind !== 'none') {
    collector.unresolvable(`${program} opens files whose names are supplied at run time`);
  }
  for (let i = 0; i < roles.files.length; i++) recordFile(roles.files[i]!, program, scope, collector);
}

/**
 * Glob words of a program whose roles are not (fully) modelled: bash expands them to files the
 * program may open (`python3 x.py .en?` gets `.env`). The facts layer's existence check cannot see
 * those, so they are reported as deny-only glob patterns (`--opt=GLOB`: the value).
 */
function recordGlobArguments(program: string, args: readonly Word[], scope: Scope, collector: AnalysisCollector): void {
  for (const word of args) {
    if (!word.glob || word.dynamic || word.tildeUnresolved) continue;
    const equals = word.text.startsWith('-') ? word.text.indexOf('=') : 0;
    if (equals === -1) continue;
    const text = equals === 0 ? word.text : word.text.slice(equals + 1);
    if (text === '') continue;
    const cwd = collector.cwdFor(scope);
    const path = resolvePath(cwd, text);
    const kernelPath = kernelPathOf(cwd, text);
    collector.redirections.push({ path, access: 'read', operator: program, glob: true, denyOnly: true, ...(kernelPath ? { kernelPath } : {}) });
  }
}

function recordFile(file: FileArgument, program: string, scope: Scope, collector: AnalysisCollector): void {
  const { word, base } = file;
  if (word.text === '-' && !base) return; // standard input or output
  // `diff <(sort a) b`: a pipe (/dev/fd/N) whose commands the walker analyses; text after it cannot
  // make a path through a pipe.
  if (word.dynamic && !base && /^[<>]\(/.test(word.text)) return;
  const unknown = isUnknown(word) ? word : base && isUnknown(base) ? base : undefined;
  if (unknown) {
    collector.unresolvable(`file ${verb(file.access)} by ${program} known only at run time: ${unknown.text}`);
    return;
  }
  const cwd = collector.cwdFor(scope);
  const path = resolvePath(base ? resolvePath(cwd, base.text) : cwd, word.text);
  // `..` is applied after symlinks by the kernel: the facts layer resolves this one when there is any.
  const kernelPath = kernelPathOf(cwd, base && !word.text.startsWith('/') ? `${base.text}/${word.text}` : word.text);
  if (isHarmlessDevice(kernelPath ?? path)) return;
  const glob = word.glob || !!base?.glob;
  collector.redirections.push({
    path, access: file.access, operator: program, ...(glob ? { glob: true } : {}), ...(kernelPath ? { kernelPath } : {}), ...(file.recursive ? { recursive: file.recursive } : {}),
  });
}

function isUnknown(word: Word): boolean {
  return word.dynamic || word.tildeUnresolved || word.text === '';
}

function verb(access: FileAccess): string {
  return access === 'read' ? 'read' : access === 'write' ? 'written' : 'deleted';
}
