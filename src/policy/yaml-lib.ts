import { createRequire } from 'node:module';

export type YamlLib = typeof import('yaml');

let lib: YamlLib | undefined;

/**
 * The YAML library, loaded on first use. Loading it costs 25–40 ms, and a start whose policy is
 * restored from the record of known-good policies (src/startup/policy-snapshots.ts) never parses
 * YAML; loading stays synchronous for the loader's callers (a project policy is read in the middle
 * of a decision). `yaml` resolves to the same CommonJS module whether imported or required.
 */
export function yamlLib(): YamlLib {
  lib ??= createRequire(import.meta.url)('yaml') as YamlLib;
  return lib;
}
