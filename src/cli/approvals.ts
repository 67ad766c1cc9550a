import { basename } from 'node:path';
import { daemonLocation } from '../daemon/location.js';
import { connectApprovals, DaemonChannel, parseApprovalsMode } from '../escalation/daemon-channel.js';
import { single, type ParsedArgs } from './args.js';

/**
 * The approvals daemon as an escalation channel for `run` and `exec` (`--approvals`, default auto).
 * `waitForIt`: resolve once the daemon is reached or known absent (exec: its first ask must find
 * it). Otherwise, in auto mode, the channel connects in the background: `run` is not held up, and
 * the editor takes the requests meanwhile.
 */
export async function approvalsChannel(args: ParsedArgs, stderr: (s: string) => void, options: { waitForIt: boolean }): Promise<DaemonChannel | undefined> {
  const mode = parseApprovalsMode(single(args, '--approvals'));
  const agent = args.agent[0] !== undefined ? basename(args.agent[0]) : undefined;
  const log = (message: string) => stderr(`acp-broker: ${message}\n`);
  if (mode !== 'auto' || options.waitForIt) return connectApprovals(mode, { agent, log });
  const channel = new DaemonChannel(daemonLocation().socket, { agent, log });
  void channel.connect();
  return channel;
}
