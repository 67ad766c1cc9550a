#!/usr/bin/env node
import { BrokerError } from '../core/errors.js';
import { parseArgs, USAGE } from './args.js';
import { checkCommand } from './check.js';
import { testCommand, trustCommand, validateCommand } from './policy-commands.js';
import { execCommand } from './exec.js';
import { runCommand } from './run.js';
import { runGrantsCommand } from '../grants/cli.js';
import { FileGrantStore } from '../grants/file-store.js';
import { brokerDirs } from '../platform/dirs.js';

const VERSION = '0.1.0';
const io = () => ({ stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) });

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.flags.has('--version')) { process.stdout.write(`acp-broker ${VERSION}\n`); return 0; }
  if (args.command === 'help' || (args.flags.has('--help'))) { process.stderr.write(`${USAGE}\n`); return 0; }
  switch (args.command) {
    case 'run': return runCommand(args);
    case 'exec': return execCommand(args);
    case 'check': return checkCommand(args, { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) });
    case 'validate': return validateCommand(args, io());
    case 'test': return testCommand(args, io());
    case 'trust': return trustCommand(args, io());
    case 'grants': {
      const io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s), cwd: process.cwd() };
      const store = new FileGrantStore({ dir: brokerDirs().config, onProblem: (p) => io.stderr(`acp-broker: grants store: ${p.message}${p.backupPath ? ` (moved aside to ${p.backupPath})` : ''}\n`) });
      return runGrantsCommand(argv.slice(1), io, store);
    }
    default: throw new BrokerError('usage', `\`${args.command}\` is not available in this version`);
  }
}

main(process.argv.slice(2)).then(
  // Exit once stdout is flushed: an open stdin (the editor's pipe) must not keep the broker alive
  // after the agent is gone.
  (code) => { process.stdout.write('', () => process.exit(code)); },
  (error: unknown) => {
    if (error instanceof BrokerError && error.code === 'usage') {
      process.stderr.write(`acp-broker: ${error.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`acp-broker: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 2;
    }
  },
);
