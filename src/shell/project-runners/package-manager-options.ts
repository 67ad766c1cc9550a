/**
 * The options of npm, npx, pnpm and yarn a line may give when it runs a project's script or a test
 * binary: those that only change output, choose among the project's own workspaces, skip the
 * project's pre/post scripts, or (for install, ls, audit …) choose what npm already does with the
 * registry the project configured. Anything else is not allowed: npm hands an option it does not know
 * to the script as `npm_config_NAME` (`npm test --x=id` sets `npm_config_x=id`, read by the script and
 * by every npm it runs: `--registry`), and many known ones run or load code (`--script-shell`,
 * `--node-options`), move the project (`--prefix`, `-C`) or read another config (`--userconfig`).
 * Sources: npm 11.19's @npmcli/config definitions and shorthands, nopt's parser and bin/npx-cli.js (read
 * here); pnpm's and yarn's CLI documentation.
 */
import { count, oneOf, projectSelector, type OptionSpec, type OptionTable } from './nopt-options.js';

const flag: OptionSpec = { kind: 'switch' };
const negatable: OptionSpec = { kind: 'switch', negatable: true };
const fixed: OptionSpec = { kind: 'fixed' };
const selector: OptionSpec = { kind: 'value', valid: projectSelector };
const depth: OptionSpec = { kind: 'value', valid: count };
const message: OptionSpec = { kind: 'value', valid: (text) => !text.startsWith('-') };

/** Known to run, load or move what the line chose (for the message; any option not listed is refused anyway). */
const NPM_HAZARDS = ['script-shell', 'node-options', 'prefix', 'global', 'location', 'userconfig', 'globalconfig', 'logs-dir', 'cache', 'package', 'call', 'shell', 'init-module', 'onload-script', 'node-gyp', 'registry'];

/** npm 11 config keys (nopt types: Boolean, or [null|'always', Boolean] with these extra words) and shorthands. */
const NPM_LONG = new Map<string, OptionSpec>([
  ...['if-present', 'ignore-scripts', 'foreground-scripts', 'include-workspace-root', 'offline', 'prefer-offline', 'prefer-online', 'json', 'all',
    'save', 'save-dev', 'save-exact', 'save-optional', 'save-prod', 'save-peer', 'dry-run', 'legacy-peer-deps', 'strict-peer-deps', 'audit', 'fund',
    'version', 'usage', 'parseable', 'long', 'progress', 'unicode', 'package-lock', 'package-lock-only', 'force', 'provenance', 'git-tag-version',
    'allow-same-version'].map((name) => [name, negatable] as const),
  ['color', { kind: 'switch', negatable: true, switchWords: ['always'] }],
  ...['workspaces', 'yes', 'production'].map((name) => [name, { kind: 'switch', negatable: true, switchWords: ['null'] }] as const),
  // Shorthands: `--silent` is `--loglevel silent`, `--help` is `--usage`, `--no` is `--no-yes`.
  ...['silent', 'quiet', 'verbose'].map((name) => [name, fixed] as const),
  ['help', flag],
  ['no', { kind: 'switch', switchWords: ['null'] }],
  ['loglevel', { kind: 'value', valid: oneOf('silent', 'error', 'warn', 'notice', 'http', 'info', 'verbose', 'silly') }],
  ['workspace', selector],
  ['depth', depth],
  ['omit', { kind: 'value', valid: oneOf('dev', 'optional', 'peer') }],
  ['include', { kind: 'value', valid: oneOf('prod', 'dev', 'optional', 'peer') }],
  ['audit-level', { kind: 'value', valid: oneOf('info', 'low', 'moderate', 'high', 'critical', 'none') }],
  // publish and version: who may install it, its dist-tag, a one-time password, the release commit's message.
  ['access', { kind: 'value', valid: oneOf('public', 'restricted') }],
  ['tag', { kind: 'value', valid: (tag) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(tag) }],
  ['otp', depth],
  ['message', message],
]);

/** npm shorthands read as single words (`-ws`, `-dd`); letters run together are not allowed. */
const NPM_SHORT = new Map<string, OptionSpec>([
  ...['s', 'q', 'd', 'dd', 'ddd'].map((name) => [name, fixed] as const),
  ...['y', 'ws', 'a', 'D', 'E', 'O', 'P', 'S', 'h', 'v', 'f', 'l', 'p'].map((name) => [name, flag] as const),
  ['w', selector],
  ['m', message],
]);

const NPM_UNKNOWN = 'an option not known to be inert (npm gives any other to the script as npm_config_*, and some run or load code)';

export const NPM_OPTIONS: OptionTable = {
  program: 'npm', long: NPM_LONG, short: NPM_SHORT, switchTakesBoolean: true, negation: true, hazards: NPM_HAZARDS,
  shortHazards: new Map([['C', 'prefix'], ['g', 'global'], ['L', 'location'], ['c', 'call']]), unknown: NPM_UNKNOWN,
};

/**
 * npx reads its options before the package itself (bin/npx-cli.js) and then hands them to npm: a
 * switch takes no `true`/`false` there, and an option npx-cli does not count as a switch (`--no` →
 * `--no-yes`, any `--no-X`) swallows the next word, which npm then reads as the package (`--no` is
 * read by node-packages.ts; the others are not allowed).
 */
export const NPX_OPTIONS: OptionTable = {
  ...NPM_OPTIONS,
  program: 'npx',
  long: new Map([...NPM_LONG].filter(([name]) => name !== 'no')),
  // npx-cli reads `-p` as `--package`, not npm's `--parseable`.
  short: new Map([...NPM_SHORT].filter(([name]) => name !== 'p')),
  shortHazards: new Map([...NPM_OPTIONS.shortHazards, ['p', 'package']]),
  switchTakesBoolean: false,
  negation: false,
};

const PNPM_YARN_HAZARDS = [...NPM_HAZARDS, 'dir', 'cwd', 'use-yarnrc', 'global-folder', 'modules-folder', 'shell-emulator', 'npmrc', 'config', 'workspace-dir', 'global-dir', 'store-dir', 'virtual-store-dir', 'modules-dir', 'use-node-version', 'cache-folder'];

/** pnpm (nopt, as npm): workspace selection, output, lockfile and offline switches. */
export const PNPM_OPTIONS: OptionTable = {
  program: 'pnpm',
  long: new Map<string, OptionSpec>([
    ...['recursive', 'parallel', 'stream', 'sequential', 'aggregate-output', 'if-present', 'silent', 'workspace-root', 'include-workspace-root',
      'fail-if-no-match', 'reporter-hide-prefix', 'offline', 'prefer-offline', 'save-dev', 'save-exact', 'save-optional', 'save-prod', 'dev', 'prod',
      'production', 'json', 'long', 'help', 'version', 'ignore-scripts'].map((name) => [name, flag] as const),
    ...['bail', 'color', 'frozen-lockfile', 'sort'].map((name) => [name, negatable] as const),
    ['filter', selector],
    ['loglevel', { kind: 'value', valid: oneOf('debug', 'info', 'warn', 'error') }],
    ['reporter', { kind: 'value', valid: oneOf('silent', 'default', 'append-only', 'ndjson') }],
    ['workspace-concurrency', depth],
    ['depth', depth],
  ]),
  short: new Map<string, OptionSpec>([...['r', 's', 'w', 'D', 'E', 'O', 'P', 'h', 'v'].map((name) => [name, flag] as const), ['F', selector]]),
  switchTakesBoolean: true,
  negation: true,
  hazards: PNPM_YARN_HAZARDS,
  shortHazards: new Map([['C', 'dir']]),
  unknown: 'an option the analysis does not know to be inert',
};

/** yarn (1: commander; berry: clipanion): output, lockfile and offline switches; no valued option. */
export const YARN_OPTIONS: OptionTable = {
  program: 'yarn',
  long: new Map<string, OptionSpec>(
    ['silent', 'verbose', 'offline', 'prefer-offline', 'frozen-lockfile', 'immutable', 'pure-lockfile', 'non-interactive', 'no-progress', 'json',
      'help', 'version', 'production', 'dev', 'exact', 'ignore-engines'].map((name) => [name, flag] as const),
  ),
  short: new Map<string, OptionSpec>(['s', 'D', 'E', 'h', 'v'].map((name) => [name, flag] as const)),
  switchTakesBoolean: false,
  negation: false,
  hazards: PNPM_YARN_HAZARDS,
  shortHazards: new Map([['C', 'dir']]),
  unknown: 'an option the analysis does not know to be inert',
};
