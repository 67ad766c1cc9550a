import { BrokerError } from '../core/errors.js';

export interface ParsedArgs {
  readonly command: string;
  /** The command was named (`run …`), not implied by its absence. */
  readonly explicitCommand: boolean;
  readonly options: Map<string, string[]>;
  readonly flags: Set<string>;
  readonly positionals: string[];
  /** Everything after `--`: the agent command. */
  readonly agent: string[];
}

/** Options that take a value; everything else starting with `--` is a flag. */
export const VALUE_OPTIONS = new Set([
  '--policy', '--managed-policy', '--audit', '--timeout', '--cwd', '--prompt', '--prompt-file', '--project', '--port', '--grace-ms',
  '--approvals', '--kind', '--path', '--url', '--agent', '--output-format', '--report', '--max-duration', '--mcp-config',
]);
export const FLAGS = new Set(['--non-interactive', '--json', '--help', '--version', '--no-desktop', '--quiet', '--no-web', '--always', '--print', '--force', '--fail-on-deny']);
export const SUBCOMMANDS = ['run', 'exec', 'check', 'test', 'validate', 'grants', 'daemon', 'approvals', 'inbox', 'trust', 'init', 'policy', 'completion', 'help'] as const;
/** Value options whose value a command lets the user leave out (`init --project` means this directory): then ''. */
const OPTIONAL_VALUES: Readonly<Record<string, readonly string[]>> = { init: ['--project'] };

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const separator = argv.indexOf('--');
  const head = separator === -1 ? [...argv] : argv.slice(0, separator);
  const agent = separator === -1 ? [] : argv.slice(separator + 1);
  let command = 'run';
  const explicitCommand = head.length > 0 && (SUBCOMMANDS as readonly string[]).includes(head[0]!);
  if (explicitCommand) command = head.shift()!;
  const options = new Map<string, string[]>();
  const flags = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const arg = head[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    if (VALUE_OPTIONS.has(name)) {
      const optional = OPTIONAL_VALUES[command]?.includes(name) === true && eq === -1 && (head[i + 1] === undefined || head[i + 1]!.startsWith('-'));
      const value = optional ? '' : eq !== -1 && arg.startsWith('--') ? arg.slice(eq + 1) : head[++i];
      if (value === undefined) throw new BrokerError('usage', `${name} needs a value`);
      options.set(name, [...(options.get(name) ?? []), value]);
    } else if (FLAGS.has(arg)) {
      flags.add(arg);
    } else if (arg === '-h') {
      flags.add('--help');
    } else if (arg === '-V') {
      flags.add('--version');
    } else if (arg.startsWith('-') && arg !== '-') {
      throw new BrokerError('usage', `unknown option ${arg}`);
    } else {
      positionals.push(arg);
    }
  }
  return { command, explicitCommand, options, flags, positionals, agent };
}

export function single(args: ParsedArgs, name: string): string | undefined {
  const values = args.options.get(name);
  if (values && values.length > 1) throw new BrokerError('usage', `${name} may be given only once`);
  return values?.[0];
}

