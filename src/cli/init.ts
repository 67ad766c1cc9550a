import { statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BrokerError } from '../core/errors.js';
import { brokerDirs } from '../platform/dirs.js';
import { describeFsError } from '../platform/fs-errors.js';
import { mkdirParents } from '../platform/mkdir.js';
import { PROJECT_POLICY_PATH } from '../policy/trust.js';
import { single, type ParsedArgs } from './args.js';
import { starterPolicy } from './starter-policy.js';

interface Io { stdout: (s: string) => void; stderr: (s: string) => void }

/**
 * `acp-broker init [--project [DIR]] [--force]`: write a starter policy — the user policy, or
 * DIR/.acp-broker/policy.yaml — never over an existing file without --force.
 */
export function initCommand(args: ParsedArgs, io: Io): number {
  if (args.positionals.length > 0) throw new BrokerError('usage', `init takes no argument (got \`${args.positionals[0]}\`); a project directory goes after --project`);
  const project = single(args, '--project');
  const layer = project === undefined ? 'user' : 'project';
  const dir = project === undefined ? undefined : resolve(project === '' ? '.' : project);
  if (dir !== undefined && !isDirectory(dir)) throw new BrokerError('bad_input', `--project ${project}: not an existing directory`);
  const file = dir === undefined ? join(brokerDirs().config, 'policy.yaml') : join(dir, ...PROJECT_POLICY_PATH);
  try {
    mkdirParents(dirname(file));
    // `wx`: the existence check and the write are one step, so nothing written meanwhile is lost.
    writeFileSync(file, starterPolicy(layer, dirname(file)), { flag: args.flags.has('--force') ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      io.stderr(`acp-broker: ${file} already exists; nothing was written (--force replaces it)\n`);
      return 1;
    }
    io.stderr(`acp-broker: cannot write ${file}: ${describeFsError(error)}\n`);
    return 1;
  }
  const next = dir === undefined
    ? 'Next: uncomment the rules you want, then try one: acp-broker check -- npm test'
    : `Next: review it, then trust it so its allow rules count: acp-broker trust ${dir}\nTry a command against it: acp-broker check --cwd ${dir} -- npm test`;
  io.stdout(`wrote ${file} (${layer} policy; extends the bundled default)\n${next}\n`);
  return 0;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
