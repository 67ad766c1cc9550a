// What bench/stream-ab.mjs and bench/decisions-ab.mjs share: broker variants from the command line,
// run beside a floor in rotated rounds.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

/** `--variant 'NAME|NODE FLAGS|ENV=V,ENV=V|CLI'` options (parts after NAME optional); `broker` alone when none. */
export function variantsFrom(argv) {
  const variants = argv.flatMap((a, i) => (a === '--variant' ? [argv[i + 1].split('|')] : []));
  return variants.length > 0 ? variants : [['broker']];
}

/**
 * Targets by name: `floor` (its args given), then each variant as `acp-broker run --policy POLICY --
 * AGENT`, in a new state dir under `work` each time (a first start), or with `seenBefore` in one
 * state dir per variant (its policy known after the first run).
 */
export function abTargets({ variants, work, policy, agent, floorArgs, seenBefore = false }) {
  return {
    floor: () => ({ args: floorArgs, env: {}, cwd: work }),
    ...Object.fromEntries(variants.map(([name, flags = '', env = '', cli = '']) => {
      const kept = seenBefore ? mkdtempSync(join(work, 'home-')) : undefined;
      return [name, () => {
        const home = kept ?? mkdtempSync(join(work, 'home-'));
        const extra = Object.fromEntries(env.split(',').filter(Boolean).map((kv) => kv.split('=')));
        const args = [...flags.split(' ').filter(Boolean), cli || join(ROOT, 'dist', 'bin', 'acp-broker.js'), 'run', '--policy', policy, '--', ...agent];
        return { args, env: { ACP_BROKER_HOME: home, ...extra }, cwd: home };
      }];
    })),
  };
}

/** `rounds` runs of every target, the order rotated each round; `once(target)` measures one; the results by name. */
export async function rotatedRuns(targets, rounds, once) {
  const names = Object.keys(targets);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length];
      runs[name].push(await once({ command: process.execPath, ...targets[name]() }));
    }
  }
  return runs;
}
