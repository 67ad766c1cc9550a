import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Create missing directories one level at a time. Node's recursive mkdir retries forever when a
 * parent answers ENOENT although it exists (procfs, dangling links); this surfaces the error instead.
 */
export function mkdirParents(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) mkdirParents(parent);
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
