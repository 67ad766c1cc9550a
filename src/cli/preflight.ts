/**
 * Checks of the command line and the environment that need no policy and no agent: they run before
 * anything starts (the early agent spawn included), so a mistake is one clear line and exit 2, at
 * once, with nothing left running.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BrokerError } from '../core/errors.js';
import { parseApprovalsMode } from '../escalation/approvals-mode.js';
import { describeFsError } from '../platform/fs-errors.js';
import { editDistance } from '../policy/diagnostics.js';
import { SUBCOMMANDS, single, type ParsedArgs } from './args.js';

/** Throws a usage error for anything wrong with `args` or the environment. */
export function preflight(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): void {
  checkBrokerHome(env);
  if (args.command === 'run' || args.command === 'exec') {
    if (args.positionals.length > 0) throw unknownCommand(args);
    positiveNumber(args, '--timeout', 'seconds');
    positiveNumber(args, '--grace-ms', 'milliseconds', true);
    parseApprovalsMode(single(args, '--approvals'));
  }
  if (args.command === 'exec') {
    const cwd = single(args, '--cwd');
    if (cwd !== undefined) directory(cwd, '--cwd');
    const promptFile = single(args, '--prompt-file');
    if (promptFile !== undefined) readPromptFile(promptFile);
    positiveNumber(args, '--max-duration', 'seconds');
  }
}

/** The prompt of `exec --prompt-file FILE`; a usage error that names the file when it cannot be read. */
export function readPromptFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new BrokerError('bad_input', `--prompt-file ${file}: ${describeFsError(error)}`);
  }
}

function checkBrokerHome(env: NodeJS.ProcessEnv): void {
  const home = env.ACP_BROKER_HOME;
  if (!home) return;
  let stats;
  try {
    stats = statSync(home);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // created on first use
    throw new BrokerError('bad_input', `ACP_BROKER_HOME=${home}: ${describeFsError(error)}`);
  }
  if (!stats.isDirectory()) throw new BrokerError('bad_input', `ACP_BROKER_HOME=${home} is not a directory`);
}

function unknownCommand(args: ParsedArgs): BrokerError {
  const word = args.positionals[0]!;
  if (args.explicitCommand) {
    return new BrokerError('usage', `${args.command} takes no argument before \`--\` (got \`${word}\`): ${args.command} [options] -- AGENT_COMMAND [ARGS...]`);
  }
  const near = SUBCOMMANDS.find((name) => editDistance(name, word) <= 2);
  return new BrokerError('usage', `unknown command \`${word}\`${near ? ` (did you mean \`${near}\`?)` : ''}; the agent command goes after \`--\``);
}

function positiveNumber(args: ParsedArgs, name: string, unit: string, zeroAllowed = false): void {
  const value = single(args, name);
  if (value === undefined) return;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (!zeroAllowed && n === 0)) {
    throw new BrokerError('usage', `${name} takes a number of ${unit}${zeroAllowed ? '' : ' greater than 0'}, not \`${value}\``);
  }
}

function directory(path: string, option: string): void {
  let stats;
  try {
    stats = statSync(resolve(path));
  } catch (error) {
    throw new BrokerError('bad_input', `${option} ${path}: ${describeFsError(error)}`);
  }
  if (!stats.isDirectory()) throw new BrokerError('bad_input', `${option} ${path} is not a directory`);
}
