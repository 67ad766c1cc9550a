import { hasErrors, type Diagnostic } from '../policy/diagnostics.js';
import { checkExamples } from '../policy/examples.js';
import { loadPolicyText } from '../policy/load.js';
import type { Layer, PolicyFile, PolicySet } from '../policy/types.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { readPolicyFile, type PolicySource, type PolicyText } from './read-policy.js';

/**
 * The one way a policy is loaded: read (read-policy.ts) → parse and validate (policy/load.ts) →
 * check every rule's examples against the shell analysis (policy/examples.ts) → order the layers.
 * Problems come back as Diagnostics; any error means no policy.
 */

/** One file, parsed and example-checked. `policy` is the parse: present even when an example fails. */
export interface CompiledPolicy {
  readonly policy: PolicyFile | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** The layered policy, or why there is none. */
export type LoadedPolicies =
  | { readonly ok: true; readonly policy: PolicySet; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** Parse and validate one text (the YAML stage; no shell parser needed). */
function parsePolicy(text: PolicyText): CompiledPolicy {
  return loadPolicyText(text.text, text.source.file, text.source.layer);
}

/** Parse one text and, when it parsed, check its examples. */
export function compilePolicy(text: PolicyText, shell: ShellAnalyzer): CompiledPolicy {
  const parsed = parsePolicy(text);
  if (!parsed.policy) return parsed;
  return { policy: parsed.policy, diagnostics: [...parsed.diagnostics, ...checkExamples(parsed.policy, shell)] };
}

/** The files as one policy set, managed layer first (explanations list what cannot be loosened first). */
export function layerPolicies(files: readonly PolicyFile[], diagnostics: readonly Diagnostic[]): LoadedPolicies {
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  const order: Record<Layer, number> = { managed: 0, user: 1, project: 2 };
  return { ok: true, policy: { files: [...files].sort((a, b) => order[a.layer] - order[b.layer]) }, diagnostics };
}

/** Every source through the whole pipeline, file by file. */
export function loadPolicies(sources: readonly PolicySource[], shell: ShellAnalyzer): LoadedPolicies {
  const diagnostics: Diagnostic[] = [];
  const files: PolicyFile[] = [];
  for (const source of sources) {
    const read = readPolicyFile(source.file);
    if ('diagnostic' in read) {
      diagnostics.push(read.diagnostic);
      continue;
    }
    const compiled = compilePolicy({ source, text: read.text }, shell);
    diagnostics.push(...compiled.diagnostics);
    if (compiled.policy) files.push(compiled.policy);
  }
  return layerPolicies(files, diagnostics);
}

/**
 * Texts already read, stage by stage: every file parsed, then — only when nothing failed so far —
 * every file's examples, with the shell parser awaited only then (it loads meanwhile). The
 * problems found, read problems first; the policy is valid when none is an error.
 */
export async function validatePolicies(
  texts: readonly PolicyText[], readProblems: readonly Diagnostic[], shell: () => Promise<ShellAnalyzer>,
): Promise<Diagnostic[]> {
  const problems = [...readProblems];
  const parsed: PolicyFile[] = [];
  for (const text of texts) {
    const loaded = parsePolicy(text);
    problems.push(...loaded.diagnostics);
    if (loaded.policy) parsed.push(loaded.policy);
  }
  if (!hasErrors(problems)) {
    const analyzer = await shell();
    for (const policy of parsed) problems.push(...checkExamples(policy, analyzer));
  }
  return problems;
}
