import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { formatCycle, importCycles } from '../../scripts/import-cycles.mjs';

interface Cycle {
  readonly modules: readonly string[];
  readonly loop: readonly { readonly from: string; readonly to: string; readonly kind: string }[];
}
const cyclesOf = importCycles as (dir?: string) => Cycle[];
const format = formatCycle as (cycle: Cycle) => string;

describe('import cycles', () => {
  it('src/ has none (issue 13: "no import cycle"), type-only and dynamic imports included', () => {
    expect(cyclesOf().map(format)).toEqual([]);
  });

  describe('the checker', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), text);
    };

    it('finds a loop through a type-only import, a re-export and a dynamic import, and ignores packages', () => {
      write('a/types.ts', "import type { B } from './b.js';\nexport type A = B | 1;\n");
      write('a/b.ts', "export { c } from '../c.js';\nexport type B = 2;\n");
      write('c.ts', "import 'node:fs';\nimport 'yaml';\nexport const c = () => import('./a/types.js');\n");
      write('d.ts', "import { c } from './c.js';\nexport const d = c;\n");
      write('self.ts', "import type { S } from './self.js';\nexport type S = 1;\nexport type T = S;\n");
      const cycles = cyclesOf(dir);
      expect(cycles).toHaveLength(2);
      const loop = cycles.find((cycle) => cycle.modules.length === 3)!;
      expect(loop.loop.map((edge) => edge.kind).sort()).toEqual(['dynamic', 'type', 'value']);
      expect(loop.modules.every((module) => !module.endsWith('d.ts'))).toBe(true);
      expect(cycles.find((cycle) => cycle.modules.length === 1)!.modules[0]).toMatch(/self\.ts$/);
    });

    it('finds nothing in an acyclic tree', () => {
      const acyclic = join(dir, 'acyclic');
      mkdirSync(acyclic);
      writeFileSync(join(acyclic, 'x.ts'), "import type { Y } from './y.js';\nexport type X = Y;\n");
      writeFileSync(join(acyclic, 'y.ts'), 'export type Y = 1;\n');
      expect(cyclesOf(acyclic)).toEqual([]);
    });
  });
});
