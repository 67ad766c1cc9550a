import { readPolicySources, type PolicySource } from '../engine/read-policy.js';
import type { BrokerDirs } from '../platform/dirs.js';
import { CheckedPolicies } from './checked-policies.js';
import { spawnEarly, type EarlyChild } from './early-child.js';
import { trickOn } from './tricks.js';

/**
 * The agent's start-up is the editor's wait, so `run` spawns it before loading anything heavy —
 * but only when every policy file has exactly the content that fully validated before (an invalid
 * policy must never start an agent). Otherwise undefined: the normal path validates first.
 */
export function earlyStart(agent: readonly string[], sources: readonly PolicySource[], dirs: BrokerDirs): EarlyChild | undefined {
  const [command, ...agentArgs] = agent;
  if (command === undefined || (process.stdin.isTTY && process.stdout.isTTY) || !trickOn('early-spawn')) return undefined;
  const read = readPolicySources(sources);
  if (read.diagnostics.length > 0) return undefined;
  if (!new CheckedPolicies(dirs.state).allChecked(read.texts)) return undefined;
  return spawnEarly(command, agentArgs, { clientIn: process.stdin });
}
