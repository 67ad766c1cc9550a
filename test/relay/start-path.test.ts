import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The package modules that importing `entry` loads (resolved through a loader hook in a fresh Node). */
function packagesLoadedBy(entry: string): string[] {
  const hook = `data:text/javascript,${encodeURIComponent(
    'export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes("/node_modules/")) console.log(r.url); return r; }')}`;
  const script = `import { register } from 'node:module'; register(${JSON.stringify(hook)}); await import(${JSON.stringify(join(ROOT, 'dist', entry))});`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return [...new Set(out.split('\n').filter(Boolean).map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url))].sort();
}

// Between its start and the agent's, and until the agent has spoken, `run` must stay light: the
// YAML parser, the shell parser and the grants store (conf/ajv) load while the agent boots.
describe('what `run` loads before the agent has started', () => {
  it('the early start and the relay load no third-party package', () => {
    expect(packagesLoadedBy('cli/early-start.js')).toEqual([]);
    expect(packagesLoadedBy('cli/run.js')).toEqual([]);
  });

  it('(control) the policy loader does load the YAML parser', () => {
    expect(packagesLoadedBy('policy/load.js')).toContain('yaml');
  });
});
