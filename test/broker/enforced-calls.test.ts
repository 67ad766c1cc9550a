/**
 * terminal/create's env (src/broker/enforced-calls.ts) against the shared allowlist of inert
 * variables (src/shell/inert-variables.ts): the flag variables with any value, locale, terminal and
 * zone names only with a value that cannot name a file; every other name is refused.
 */
import { describe, expect, it } from 'vitest';
import { enforcedCallProblem } from '../../src/broker/enforced-calls.js';

const withEnv = (name: string, value: string) => enforcedCallProblem('terminal/create', { command: 'npm test', env: [{ name, value }] });

describe('terminal/create env', () => {
  it('passes the flag variables whatever their value', () => {
    for (const name of ['CLAUDECODE', 'CI', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLUMNS', 'LINES']) {
      expect(withEnv(name, '1'), name).toBeUndefined();
      expect(withEnv(name, 'x; id $(id) /etc/passwd'), name).toBeUndefined();
    }
  });

  it('passes a locale, terminal or zone name, not a value that names a file', () => {
    for (const [name, value] of [['LANG', 'C.UTF-8'], ['LC_ALL', 'en_US.UTF-8'], ['LC_MESSAGES', 'de_DE@euro'], ['TERM', 'xterm-256color'], ['TZ', 'UTC'], ['TZ', 'America/New_York'], ['TZ', 'Etc/GMT+5']]) {
      expect(withEnv(name!, value!), `${name}=${value}`).toBeUndefined();
    }
    for (const [name, value] of [['LANG', '/tmp/x'], ['LC_ALL', '../x'], ['TERM', '../x'], ['TERM', ''], ['TZ', '/etc/passwd'], ['TZ', ':x'], ['TZ', '../../x'], ['TZ', '']]) {
      expect(withEnv(name!, value!), `${name}=${value}`).toMatch(/does not know to leave what runs unchanged/);
    }
  });

  it('refuses any other name, hazardous or unknown', () => {
    expect(withEnv('RUSTC_WRAPPER', 'x')).toMatch(/changes what the command runs/);
    expect(withEnv('X', 'id')).toMatch(/its env sets X, which the broker does not know/);
    expect(withEnv('NODE_ENV', 'test')).toMatch(/NODE_ENV/);
    expect(withEnv('LC_FOO', 'C')).toMatch(/LC_FOO/);
  });
});
