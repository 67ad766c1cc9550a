import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every module URL that importing `entry` resolves (through a loader hook, in a fresh Node). */
function modulesLoadedBy(entry: string): string[] {
  const hook = `data:text/javascript,${encodeURIComponent(
    'export async function resolve(s, c, next) { const r = await next(s, c); console.log(r.url); return r; }')}`;
  const script = `import { register } from 'node:module'; register(${JSON.stringify(hook)}); await import(${JSON.stringify(join(ROOT, 'dist', entry))});`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** The package modules that importing `entry` loads. */
function packagesLoadedBy(entry: string): string[] {
  const packages = modulesLoadedBy(entry).filter((url) => url.includes('/node_modules/'));
  return [...new Set(packages.map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url))].sort();
}

// Between its start and the agent's, and until the agent has spoken, `run` must stay light: the
// YAML parser, the shell parser and the grants store (conf/ajv) load while the agent boots.
describe('what `run` loads before the agent has started', () => {
  it('the early start and the relay load no third-party package', () => {
    expect(packagesLoadedBy('startup/early-start.js')).toEqual([]);
    expect(packagesLoadedBy('cli/run.js')).toEqual([]);
  });

  it('the early start loads no crypto module (~4 ms): known policies are compared whole, not hashed', () => {
    const builtins = modulesLoadedBy('startup/early-start.js').filter((url) => url.startsWith('node:'));
    expect(builtins).not.toContain('node:crypto');
    expect(builtins).toContain('node:child_process'); // (control) the hook does see built-ins
  });

  it('(control) the policy loader loads the YAML parser when it parses, not before', () => {
    // Required on first use (policy/yaml-lib.ts), which the ES loader hook does not see: the CommonJS cache does.
    const script = `import { createRequire } from 'node:module'; const cache = createRequire(import.meta.url).cache;
      const yaml = () => Object.keys(cache).some((k) => k.includes('/node_modules/yaml/'));
      const { loadPolicyText } = await import(${JSON.stringify(join(ROOT, 'dist', 'policy', 'load.js'))});
      console.log(yaml()); loadPolicyText('version: 1\\nrules: []\\n', 'p.yaml', 'user'); console.log(yaml());`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual(['false', 'true']);
  });
});
