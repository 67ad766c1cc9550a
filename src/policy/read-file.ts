import { readFileSync } from 'node:fs';
import type { Diagnostic } from './diagnostics.js';

// Its own module, free of the YAML parser: `run` reads the policy files before the agent starts.

/** A policy file's text, or the diagnostic that says why it could not be read. */
export function readPolicyFile(file: string): { text: string } | { diagnostic: Diagnostic } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { diagnostic: {
      severity: 'error', code: 'read_failed', location: { file, line: 1, column: 1 },
      message: `cannot read policy file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      hint: 'check the path given to --policy',
    } };
  }
}
