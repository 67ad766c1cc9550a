#!/usr/bin/env node
import { BrokerError } from '../core/errors.js';
import { parseArgs } from './args.js';
import { preflight } from './preflight.js';
// Static, unlike the other commands' modules: `run` is the hot path, and the agent's spawn should
// not wait for one more module load (src/startup/README.md).
import { brokerDirs } from '../platform/dirs.js';
import { earlyStart } from '../startup/early-start.js';
import { policySources } from './policy-sources.js';

const VERSION = '0.1.0';
const io = () => ({ stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) });

/** The command a usage error is about, for the short usage that follows it. */
let commandInUse = 'run';

async function main(argv: readonly string[]): Promise<number> {
  commandInUse = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : 'run';
  const args = parseArgs(argv);
  commandInUse = args.command;
  if (args.flags.has('--version')) { process.stdout.write(`acp-broker ${VERSION}\n`); return 0; }
  if (args.command === 'help' || args.flags.has('--help')) return (await import('./help-command.js')).helpCommand(args, io());
  preflight(args);
  switch (args.command) {
    // Each command's modules load only when it runs: start-up time is the agent's start-up time.
    case 'run': {
      const dirs = brokerDirs();
      const early = args.flags.has('--help') ? undefined : earlyStart(args.agent, policySources(args, dirs), dirs);
      return (await import('./run.js')).runCommand(args, early);
    }
    case 'exec': return (await import('./exec.js')).execCommand(args);
    case 'check': return (await import('./check.js')).checkCommand(args, io());
    case 'validate': return (await import('./policy-commands.js')).validateCommand(args, io());
    case 'test': return (await import('./policy-commands.js')).testCommand(args, io());
    case 'trust': return (await import('./policy-commands.js')).trustCommand(args, io());
    case 'grants': {
      const [{ runGrantsCommand }, { FileGrantStore }] = await Promise.all([import('../grants/cli.js'), import('../grants/file-store.js')]);
      const grantsIo = { ...io(), cwd: process.cwd() };
      const store = new FileGrantStore({ dir: brokerDirs().config, onProblem: (p) => grantsIo.stderr(`acp-broker: grants store: ${p.message}${p.backupPath ? ` (moved aside to ${p.backupPath})` : ''}\n`) });
      return runGrantsCommand(argv.slice(1), grantsIo, store);
    }
    case 'init': return (await import('./init.js')).initCommand(args, io());
    case 'policy': return (await import('./policy-show.js')).policyCommand(args, io());
    case 'completion': return (await import('./help-command.js')).completionCommand(args, io());
    case 'daemon': return (await import('../daemon/commands.js')).daemonCommand(args, io());
    case 'approvals': return (await import('../daemon/commands.js')).approvalsCommand(args, io());
    case 'inbox': return (await import('../daemon/inbox-command.js')).inboxCommand(args, io());
    default: throw new BrokerError('usage', `\`${args.command}\` is not available in this version`);
  }
}

main(process.argv.slice(2)).then(
  // Exit once stdout is flushed: an open stdin (the editor's pipe) must not keep the broker alive
  // after the agent is gone.
  (code) => { process.stdout.write('', () => process.exit(code)); },
  async (error: unknown) => {
    // One line, never a stack trace for a mistake (a usage mistake adds the command's synopsis);
    // then exit at once: an open stdin or an agent spawned early must not keep a failed broker alive.
    const message = error instanceof BrokerError
      ? `acp-broker: ${error.message}\n${error.code === 'usage' ? await usageOf(commandInUse) : ''}`
      : `acp-broker: internal error: ${process.env.ACP_BROKER_DEBUG ? (error as Error).stack : (error as Error)?.message ?? String(error)}\n`;
    process.stderr.write(message, () => process.exit(2));
  },
);

async function usageOf(command: string): Promise<string> {
  try {
    return (await import('./help.js')).shortUsage(command);
  } catch {
    return '';
  }
}
