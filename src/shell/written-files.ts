/**
 * Files that common commands write through their arguments rather than a redirect (`tee f`,
 * `sort -o f`, `git diff --output=f`, `curl -o f`, `cp a f`, `dd of=f`). They are reported as
 * write redirections (operator = the program) so an allow rule for `git diff` or `sort` does not
 * also allow writing /etc/passwd.
 */
import { shapeOf } from './command-shape.js';

interface WriteSpec {
  /** Option keys (see option-specs.ts; unknown options keep their spelling) whose value is written. */
  readonly options?: readonly string[];
  /** Which positional words are written. */
  readonly positionals?: 'all' | 'last';
}

const WRITE_SPECS: Readonly<Record<string, WriteSpec>> = {
  tee: { positionals: 'all' },
  sort: { options: ['-o', '--output'] },
  git: { options: ['--output'] },
  curl: { options: ['output', 'dump-header', 'cookie-jar', '--output-dir'] },
  wget: { options: ['output-document', 'output-file', 'append-output', 'directory-prefix'] },
  cp: { options: ['-t', '--target-directory'], positionals: 'last' },
  mv: { options: ['-t', '--target-directory'], positionals: 'last' },
  install: { options: ['-t', '--target-directory'], positionals: 'last' },
  ln: { options: ['-t', '--target-directory'], positionals: 'last' },
};

/** Written file arguments of `argv` (as written, `-` for stdout excluded). */
export function writtenFiles(program: string, argv: readonly string[]): string[] {
  if (program === 'dd') return argv.filter((word) => word.startsWith('of=')).map((word) => word.slice(3));
  const spec = Object.hasOwn(WRITE_SPECS, program) ? WRITE_SPECS[program] : undefined;
  if (!spec) return [];
  const shape = shapeOf(program, argv.slice(1));
  const files: string[] = [];
  for (const use of shape.options) {
    if (use.value !== undefined && spec.options?.some((key) => use.keys.includes(key))) files.push(use.value);
  }
  const positionals = program === 'git' ? [] : shape.positionals;
  if (spec.positionals === 'all') files.push(...positionals);
  else if (spec.positionals === 'last' && positionals.length >= 2 && !files.length) files.push(positionals[positionals.length - 1]!);
  return files.filter((file) => file !== '-' && file !== '');
}
