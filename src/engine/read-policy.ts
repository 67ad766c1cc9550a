import { readFileSync } from 'node:fs';
import { describeFsError } from '../platform/fs-errors.js';
import type { Diagnostic } from '../policy/diagnostics.js';
import type { Layer } from '../policy/types.js';

// The pipeline's first stage, in a module of its own and free of the YAML parser: `run` reads the
// policy files before the agent starts (src/startup/README.md).

/** A policy file in force and the layer it is loaded as. */
export interface PolicySource {
  readonly file: string;
  readonly layer: Layer;
}

/** A source's content, as read once: every later stage works on these exact bytes. */
export interface PolicyText {
  readonly source: PolicySource;
  readonly text: string;
}

/** A policy file's text, or the diagnostic that says why it could not be read (and the error itself). */
export function readPolicyFile(file: string): { text: string } | { diagnostic: Diagnostic; error: Error } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { error: error as Error, diagnostic: {
      severity: 'error', code: 'read_failed', location: { file, line: 1, column: 1 },
      message: `cannot read policy file: ${describeFsError(error)}`,
      hint: hintFor((error as NodeJS.ErrnoException).code),
    } };
  }
}

/** Every source's text, in order, and a diagnostic for each that could not be read. */
export function readPolicySources(sources: readonly PolicySource[]): { texts: PolicyText[]; diagnostics: Diagnostic[] } {
  const texts: PolicyText[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const source of sources) {
    const read = readPolicyFile(source.file);
    if ('diagnostic' in read) diagnostics.push(read.diagnostic);
    else texts.push({ source, text: read.text });
  }
  return { texts, diagnostics };
}

function hintFor(code: string | undefined): string {
  switch (code) {
    case 'ENOENT': case 'ENOTDIR': return 'check the path given to --policy';
    case 'EACCES': case 'EPERM': return 'the file exists but this user may not read it: check its permissions';
    case 'EISDIR': return 'give the policy file inside that directory';
    default: return 'check the file';
  }
}
