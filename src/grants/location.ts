/**
 * Where grants.json lives: `$ACP_BROKER_HOME` when set (tests and CI always set it), otherwise the
 * user config directory conf itself would pick for projectName 'acp-broker' without a suffix
 * (the env-paths convention), so the file is found by `acp-broker grants` and every broker alike.
 */
import os from 'node:os';
import path from 'node:path';

const APP = 'acp-broker';

export function defaultGrantsDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  const brokerHome = env.ACP_BROKER_HOME;
  if (brokerHome !== undefined && brokerHome !== '') return path.resolve(brokerHome);
  switch (platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Preferences', APP);
    case 'win32':
      return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), APP, 'Config');
    default:
      return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), APP);
  }
}
