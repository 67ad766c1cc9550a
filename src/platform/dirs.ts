import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BrokerDirs {
  /** User policy, grants, trust records. */
  readonly config: string;
  /** Audit log and other state. */
  readonly state: string;
  readonly home: string;
}

/** `ACP_BROKER_HOME` puts everything in one directory (tests always set it); else the platform's usual places. */
export function brokerDirs(env: NodeJS.ProcessEnv = process.env): BrokerDirs {
  const home = env.HOME && env.HOME !== '' ? env.HOME : homedir();
  if (env.ACP_BROKER_HOME) return { config: env.ACP_BROKER_HOME, state: env.ACP_BROKER_HOME, home };
  switch (platform()) {
    case 'darwin': {
      const dir = join(home, 'Library', 'Application Support', 'acp-broker');
      return { config: dir, state: dir, home };
    }
    case 'win32': {
      const dir = join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'acp-broker');
      return { config: dir, state: dir, home };
    }
    default:
      return {
        config: join(env.XDG_CONFIG_HOME || join(home, '.config'), 'acp-broker'),
        state: join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'acp-broker'),
        home,
      };
  }
}

/** Files shipped with the package (policies/, examples/). */
export function packagePath(...segments: string[]): string {
  return join(fileURLToPath(new URL('../../', import.meta.url)), ...segments);
}
