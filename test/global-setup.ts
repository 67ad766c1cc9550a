import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Tests that spawn the CLI run the built dist/ (the bundle users run): build it once so it never lags behind src/. */
export default function setup(): void {
  const root = join(import.meta.dirname, '..');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { stdio: 'inherit' });
}
