import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PolicySource } from '../engine/read-policy.js';
import { packagePath, type BrokerDirs } from '../platform/dirs.js';
import type { ParsedArgs } from './args.js';

// Deliberately light (no YAML, no parser): `run` resolves its policy files before anything heavy loads.

/** Where an administrator installs the managed layer on each platform. */
export function systemManagedPolicy(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  switch (platform) {
    case 'darwin': return '/Library/Application Support/acp-broker/policy.yaml';
    case 'win32': return join(env.ProgramData ?? 'C:\\ProgramData', 'acp-broker', 'policy.yaml');
    default: return '/etc/acp-broker/policy.yaml';
  }
}

/** Which policy files are in force, by layer. */
export function policySources(args: ParsedArgs, dirs: BrokerDirs, cwd = process.cwd()): PolicySource[] {
  const sources: PolicySource[] = [];
  for (const file of args.options.get('--managed-policy') ?? []) sources.push({ file: resolve(cwd, file), layer: 'managed' });
  const system = systemManagedPolicy();
  if (existsSync(system)) sources.push({ file: system, layer: 'managed' });
  const user = args.options.get('--policy');
  if (user && user.length > 0) {
    for (const file of user) sources.push({ file: resolve(cwd, file), layer: 'user' });
  } else {
    const userFile = join(dirs.config, 'policy.yaml');
    sources.push({ file: existsSync(userFile) ? userFile : packagePath('policies', 'default.yaml'), layer: 'user' });
  }
  return sources;
}

