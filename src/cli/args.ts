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
const VALUE_OPTIONS = new Set([
  '--policy', '--managed-policy', '--audit', '--timeout', '--cwd', '--prompt', '--prompt-file', '--project', '--port', '--grace-ms',
  '--approvals', '--max-duration', '--mcp-config',
]);
const FLAGS = new Set(['--non-interactive', '--json', '--help', '--version', '--no-desktop', '--quiet', '--no-web', '--always', '--print']);
export const SUBCOMMANDS = ['run', 'exec', 'check', 'test', 'validate', 'grants', 'daemon', 'approvals', 'inbox', 'trust', 'help'] as const;

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
      const value = eq !== -1 && arg.startsWith('--') ? arg.slice(eq + 1) : head[++i];
      if (value === undefined) throw new BrokerError('usage', `${name} needs a value`);
      options.set(name, [...(options.get(name) ?? []), value]);
    } else if (FLAGS.has(arg)) {
      flags.add(arg);
    } else if (arg === '-h') {
      flags.add('--help');
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

export const USAGE = `acp-broker — decides what AI coding agents may do (Agent Client Protocol middleware)

Usage:
  acp-broker [run] [options] -- AGENT_COMMAND [ARGS...]     wrap an agent (what the editor launches)
  acp-broker exec [options] (--prompt TEXT|- | --prompt-file FILE) [--cwd DIR] -- AGENT_COMMAND [ARGS...]
  acp-broker check [--policy FILE]... [--cwd DIR] [--json] REQUEST.json|-
  acp-broker validate [FILE...]      every problem as file:line:column; exit 1 on an error
  acp-broker test [FILE...]          run every rule's examples; exit 1 on a failure
  acp-broker trust [DIR]             trust DIR/.acp-broker/policy.yaml as it is now
  acp-broker grants list [--json] | revoke ID | clear [--project DIR]
  acp-broker daemon [--port N] [--no-desktop] [--no-web]   approvals daemon (notifications, web inbox)
  acp-broker daemon status | stop
  acp-broker approvals [list [--json] | allow ID [--always] | deny ID [--always]]   answer from a terminal
  acp-broker inbox [--print]                               open the daemon's web inbox (or print its address)

Options for run and exec:
  --policy FILE           policy file (repeatable); default: the user policy, else the bundled default
  --managed-policy FILE   managed policy layer (repeatable); users cannot loosen it
  --non-interactive       nobody can answer: 'ask' becomes the policy's non_interactive fallback (exec implies it)
  --audit FILE            append decision events as JSONL (default: <state dir>/audit.jsonl)
  --timeout SECONDS       an escalated request unanswered this long gets the non_interactive fallback
                          (run: no limit by default; exec with the approvals daemon: 300)
  --approvals MODE        auto (default): also offer escalations to the approvals daemon when it runs;
                          daemon: require it; off: never use it

Options for exec:
  --prompt -              read the prompt from stdin
  --max-duration SECONDS  then session/cancel; 5 s later the agent is stopped; exit 124
  --mcp-config FILE       MCP servers for session/new: {"mcpServers": {NAME: {...}}} or an ACP array

Environment:
  ACP_BROKER_HOME         one directory for config, grants and audit

Exit codes: run: the agent's code (127: it cannot start); exec: 0 turn ended normally, 1 not, 124 timed
out, 127 agent cannot start (or needs authentication); check: 0 allow, 1 deny, 3 ask; test, validate: 0/1; every command: 2 for a mistake.`;
