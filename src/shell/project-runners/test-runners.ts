import { longName, ownWords, type Check } from './options.js';

/**
 * Options of the test runners a project's script runs (vitest; jest, mocha and node's test runner
 * too: the script may be any of them) that load a module or config, move the root or write a file.
 * vitest's cac reads `--global-setup` as `--globalSetup` and `--a.b` as a nested key.
 */
const TEST_RUNNER_HAZARDS = new Set([
  'config', 'root', 'dir', 'globalsetup', 'globalteardown', 'setupfiles', 'setupfilesafterenv', 'outputfile', 'environment', 'testenvironment',
  'pool', 'pooloptions', 'browser', 'workspace', 'projects', 'api', 'ui', 'open', 'inspect', 'inspectbrk', 'configloader', 'mergereports', 'diff',
  'snapshotserializers', 'resolvesnapshotpath', 'snapshotresolver', 'rootdir', 'roots', 'testrunner', 'transform', 'preset', 'resolver', 'watchplugins',
  'testsequencer', 'testresultsprocessor', 'moduledirectories', 'modulepaths', 'coveragedirectory', 'coveragereporters', 'coverageprovider', 'cachedirectory',
  'require', 'import', 'loader', 'experimentalloader', 'file', 'testreporter', 'testreporterdestination', 'envfile', 'extension',
]);
/** Switches on their own (`--coverage`), hazards with a nested key (`--coverage.provider=custom`, `--typecheck.checker=`). */
const VITEST_NESTED_HAZARDS = new Set(['coverage', 'typecheck', 'cache', 'sequence']);

/** `--reporter` names a built-in reporter or a module to load. */
const BUILT_IN_REPORTERS = new Set([
  'default', 'basic', 'verbose', 'dot', 'json', 'junit', 'tap', 'tap-flat', 'hanging-process', 'github-actions', 'blob', 'html', 'tree', 'summary',
  'spec', 'nyan', 'landing', 'list', 'progress', 'json-stream', 'min', 'doc', 'markdown', 'xunit',
]);

export const testRunner: Check = (args) => {
  const own = ownWords(args);
  for (let i = 0; i < own.length; i++) {
    const word = own[i]!;
    const long = longName(word);
    if (long === 'reporter' || long === 'reporters') {
      const value = word.includes('=') ? word.slice(word.indexOf('=') + 1) : own[++i];
      if (value === undefined || !BUILT_IN_REPORTERS.has(value)) return `test runner --${long} ${value ?? ''}: a reporter module the line chose`;
      continue;
    }
    if (long !== undefined) {
      const key = long.replace(/^no-/, '').split('.')[0]!.replaceAll('-', '').toLowerCase();
      if (TEST_RUNNER_HAZARDS.has(key) || (VITEST_NESTED_HAZARDS.has(key) && long.includes('.'))) return `test runner --${long} loads code or opens files the line chose`;
      continue;
    }
    if (/^-[A-Za-z]*[cr]/.test(word)) return `test runner ${word}: -c (config) and -r (root, mocha's require) load what the line chose`;
  }
  return undefined;
};
