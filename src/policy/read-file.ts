import { readFileSync } from 'node:fs';
import { describeFsError } from '../platform/fs-errors.js';
import type { Diagnostic } from './diagnostics.js';

// Its own module, free of the YAML parser: `run` reads the policy files before the agent starts.

/** A policy file's text, or the diagnostic that says why it could not be read. */
export function readPolicyFile(file: string): { text: string } | { diagnostic: Diagnostic } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { diagnostic: {
      severity: 'error', code: 'read_failed', location: { file, line: 1, column: 1 },
      message: `cannot read policy file: ${describeFsError(error)}`,
      hint: hintFor((error as NodeJS.ErrnoException).code),
    } };
  }
}

function hintFor(code: string | undefined): string {
  switch (code) {
    case 'ENOENT': case 'ENOTDIR': return 'check the path given to --policy';
    case 'EACCES': case 'EPERM': return 'the file exists but this user may not read it: check its permissions';
    case 'EISDIR': return 'give the policy file inside that directory';
    default: return 'check the file';
  }
}
