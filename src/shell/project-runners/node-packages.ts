import { abbreviates, longName, ownWords, type Check } from './options.js';
import { testRunner } from './test-runners.js';

/** npm config keys that run a program, load code, move the project or read a config file. */
const NPM_HAZARDS = ['script-shell', 'node-options', 'prefix', 'global', 'location', 'userconfig', 'globalconfig', 'logs-dir', 'cache', 'package', 'call', 'shell', 'init-module', 'onload-script', 'node-gyp'];

/** npm and npx: their options before `--`. */
function npmHazard(args: readonly string[], program: string): string | undefined {
  for (const word of ownWords(args)) {
    const long = longName(word);
    const hazard = long === undefined ? undefined : abbreviates(long.replace(/^no-/, ''), NPM_HAZARDS);
    if (hazard) return `${program} --${hazard} runs or loads what the line chose`;
    if (/^-[A-Za-z]*[Cpcg]/.test(word) && !word.startsWith('--')) return `${program} ${word}: -C, -g, -p and -c change the project, package or command`;
  }
  return undefined;
}

/** Words after `--` go to the project's script: a test runner, whose options are checked (`npm test -- --reporter=./x.log` loads x.log). */
export const npm: Check = (args) => npmHazard(args, 'npm') ?? (args.includes('--') ? testRunner(args.slice(args.indexOf('--') + 1)) : undefined);

/** pnpm and yarn: the same concerns under their own names; `--config.KEY=` sets any key. */
const PNPM_YARN_HAZARDS = [...NPM_HAZARDS, 'dir', 'cwd', 'use-yarnrc', 'global-folder', 'modules-folder', 'shell-emulator', 'npmrc', 'config'];

export function pnpmYarn(program: string): Check {
  return (args) => {
    for (const word of ownWords(args)) {
      const long = longName(word);
      const hazard = long === undefined ? undefined : abbreviates(long.replace(/^no-/, '').replace(/\..*$/, ''), PNPM_YARN_HAZARDS);
      if (hazard) return `${program} --${hazard} runs, loads or moves what the line chose`;
      if (/^-[A-Za-z]*C/.test(word) && !word.startsWith('--')) return `${program} ${word}: -C runs another directory's scripts`;
    }
    // `pnpm test ARGS` / `yarn test ARGS`: the words after the script name go to it.
    const script = args.findIndex((word) => !word.startsWith('-'));
    return script === -1 ? undefined : testRunner(args.slice(script + 1).filter((word) => word !== '--'));
  };
}

/**
 * `npx [npm options] PACKAGE ARGS…`: npm's options before the package, the test runner's after it (a
 * valued npm option may hide where the package starts: every word after a `vitest` is read as its).
 */
export const npx: Check = (args) => {
  const at = args.findIndex((word) => !word.startsWith('-'));
  const problem = npmHazard(at === -1 ? args : args.slice(0, at), 'npx');
  if (problem) return problem;
  const runner = args.findIndex((word) => /^(vitest|jest|mocha)(@[^/]*)?$/.test(word));
  return runner === -1 ? undefined : testRunner(args.slice(runner + 1));
};

