import type { ShellAnalyzer } from '../shell/types.js';
import { hasErrors, type Diagnostic } from './diagnostics.js';
import { checkExamples } from './examples.js';
import { loadPolicyText } from './load.js';
import { readPolicyFile } from './read-file.js';
import type { Layer, PolicyFile, PolicySet } from './types.js';

export interface PolicySource {
  readonly file: string;
  readonly layer: Layer;
}

export interface LoadedPolicies {
  readonly policy: PolicySet | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** Read, validate and example-check every policy file; any error means no policy. */
export function loadPolicyFiles(sources: readonly PolicySource[], shell: ShellAnalyzer): LoadedPolicies {
  const diagnostics: Diagnostic[] = [];
  const files: PolicyFile[] = [];
  for (const source of sources) {
    const read = readPolicyFile(source.file);
    if ('diagnostic' in read) {
      diagnostics.push(read.diagnostic);
      continue;
    }
    const text = read.text;
    const loaded = loadPolicyText(text, source.file, source.layer);
    diagnostics.push(...loaded.diagnostics);
    if (loaded.policy) {
      diagnostics.push(...checkExamples(loaded.policy, shell));
      files.push(loaded.policy);
    }
  }
  // Managed first: explanations list the layer that cannot be loosened first.
  const order: Record<Layer, number> = { managed: 0, user: 1, project: 2 };
  files.sort((a, b) => order[a.layer] - order[b.layer]);
  return { policy: hasErrors(diagnostics) ? undefined : { files }, diagnostics };
}
