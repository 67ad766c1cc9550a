import { readFileSync } from 'node:fs';
import { brokerDirs } from '../platform/dirs.js';
import { spawnEarly, type EarlyChild } from '../relay/early-child.js';
import { CheckedPolicies } from '../runtime/checked-policies.js';
import type { ParsedArgs } from './args.js';
import { policySources } from './policy-sources.js';

/**
 * The agent's start-up is the editor's wait, so `run` spawns it before loading anything heavy —
 * but only when every policy file has exactly the content that fully validated before (an invalid
 * policy must never start an agent). Otherwise undefined: the normal path validates first.
 */
export function earlyStart(args: ParsedArgs): EarlyChild | undefined {
  const [command, ...agentArgs] = args.agent;
  if (command === undefined || (process.stdin.isTTY && process.stdout.isTTY)) return undefined;
  const dirs = brokerDirs();
  const texts: string[] = [];
  for (const source of policySources(args, dirs)) {
    try {
      texts.push(readFileSync(source.file, 'utf8'));
    } catch {
      return undefined;
    }
  }
  if (!new CheckedPolicies(dirs.state).allChecked(texts)) return undefined;
  return spawnEarly(command, agentArgs, { clientIn: process.stdin });
}
