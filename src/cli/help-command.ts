import { BrokerError } from '../core/errors.js';
import type { ParsedArgs } from './args.js';
import { completionScript } from './completion.js';
import { commandHelp, isCommand, overview, styleFor } from './help.js';

interface Io { stdout: (s: string) => void; stderr: (s: string) => void }

/**
 * `acp-broker help [COMMAND]`, `acp-broker COMMAND --help`, `acp-broker --help`: help on stdout,
 * exit 0 — it is what was asked for, not an error.
 */
export function helpCommand(args: ParsedArgs, io: Io, stdout: { isTTY?: boolean } = process.stdout): number {
  const style = styleFor(stdout);
  const topic = args.command === 'help' ? args.positionals[0] : args.explicitCommand ? args.command : undefined;
  if (args.command === 'help' && args.positionals.length > 1) throw new BrokerError('usage', 'help takes one command');
  if (topic === undefined) {
    io.stdout(overview(style));
    return 0;
  }
  if (!isCommand(topic)) throw new BrokerError('usage', `help: no command \`${topic}\``);
  io.stdout(commandHelp(topic, style));
  return 0;
}

/** `acp-broker completion bash|zsh|fish`. */
export function completionCommand(args: ParsedArgs, io: Io): number {
  if (args.positionals.length > 1) throw new BrokerError('usage', 'completion takes one shell: bash, zsh or fish');
  io.stdout(completionScript(args.positionals[0]));
  return 0;
}
