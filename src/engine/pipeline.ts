import { readdirSync, readFileSync } from 'node:fs';
import { describeFsError } from '../platform/fs-errors.js';
import { packagePath } from '../platform/dirs.js';
import { hasErrors, type Diagnostic } from '../policy/diagnostics.js';
import { checkExamples } from '../policy/examples.js';
import { loadPolicyChain, type ExtendedFile, type ExtendsIo } from '../policy/extends.js';
import type { Layer, PolicyFile, PolicySet } from '../policy/types.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { readPolicyFile, type PolicySource, type PolicyText } from './read-policy.js';

/**
 * The one way a policy is loaded: read (read-policy.ts) → parse and validate, following `extends`
 * (policy/load.ts, policy/extends.ts) → check every rule's examples against the shell analysis
 * (policy/examples.ts) → order the layers. Problems come back as Diagnostics; any error means no policy.
 */

/** One source and the policies it extends, parsed and example-checked. */
export interface CompiledPolicy {
  /** The parse, extended policies first and the source's own file last: present even when an example fails. */
  readonly files: readonly PolicyFile[] | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** The files read through `extends`, with the text used. */
  readonly extended: readonly ExtendedFile[];
}

/** The layered policy, or why there is none. `extended`: every file read through `extends`. */
export type LoadedPolicies =
  | { readonly ok: true; readonly policy: PolicySet; readonly diagnostics: readonly Diagnostic[]; readonly extended: readonly ExtendedFile[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** A source whose whole chain validated: its text and the extended files' texts, as checked, and what they loaded to. */
export interface CheckedSource {
  readonly file: string;
  readonly text: string;
  readonly extended: readonly ExtendedFile[];
  readonly layer: Layer;
  /** The chain's files, extended ones first (policy/extends.ts), and the load's warnings. */
  readonly files: readonly PolicyFile[];
  readonly diagnostics: readonly Diagnostic[];
}

let bundledNames: readonly string[] | undefined;

/** The real files: extended policies from disk, bundled ones from the package's policies/. */
export const diskExtendsIo: ExtendsIo = {
  read(file) {
    try {
      return { text: readFileSync(file, 'utf8') };
    } catch (error) {
      return { error: describeFsError(error) };
    }
  },
  get bundled() {
    bundledNames ??= readdirSync(packagePath('policies')).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length)).sort();
    return bundledNames;
  },
  bundledFile: (name) => packagePath('policies', `${name}.yaml`),
};

/** Parse and validate one text and what it extends (the YAML stage; no shell parser needed). */
function parsePolicy(text: PolicyText, io: ExtendsIo): CompiledPolicy {
  return loadPolicyChain({ file: text.source.file, text: text.text, layer: text.source.layer }, io);
}

/** Parse one text and what it extends and, when that parsed, check every file's examples. */
export function compilePolicy(text: PolicyText, shell: ShellAnalyzer, io: ExtendsIo = diskExtendsIo): CompiledPolicy {
  const parsed = parsePolicy(text, io);
  if (!parsed.files) return parsed;
  return { ...parsed, diagnostics: [...parsed.diagnostics, ...parsed.files.flatMap((f) => checkExamples(f, shell))] };
}

/** The files as one policy set, managed layer first (explanations list what cannot be loosened first). */
export function layerPolicies(files: readonly PolicyFile[], diagnostics: readonly Diagnostic[], extended: readonly ExtendedFile[] = []): LoadedPolicies {
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  const order: Record<Layer, number> = { managed: 0, user: 1, project: 2 };
  // A stable sort: within a layer, extended policies stay before the file that extends them.
  return { ok: true, policy: { files: [...files].sort((a, b) => order[a.layer] - order[b.layer]) }, diagnostics, extended };
}

/** Every source through the whole pipeline, file by file. */
export function loadPolicies(sources: readonly PolicySource[], shell: ShellAnalyzer, io: ExtendsIo = diskExtendsIo): LoadedPolicies {
  const diagnostics: Diagnostic[] = [];
  const files: PolicyFile[] = [];
  const extended: ExtendedFile[] = [];
  for (const source of sources) {
    const read = readPolicyFile(source.file);
    if ('diagnostic' in read) {
      diagnostics.push(read.diagnostic);
      continue;
    }
    const compiled = compilePolicy({ source, text: read.text }, shell, io);
    diagnostics.push(...compiled.diagnostics);
    files.push(...compiled.files ?? []);
    extended.push(...compiled.extended);
  }
  return layerPolicies(files, diagnostics, extended);
}

/**
 * Texts already read, stage by stage: every file (and what it extends) parsed, then — only when
 * nothing failed so far — every file's examples, with the shell parser awaited only then (it loads
 * meanwhile). The problems found, read problems first; the policy is valid when none is an error,
 * and `checked` then says which contents were validated (start-up remembers them).
 */
export async function validatePolicies(
  texts: readonly PolicyText[], readProblems: readonly Diagnostic[], shell: () => Promise<ShellAnalyzer>, io: ExtendsIo = diskExtendsIo,
): Promise<{ problems: Diagnostic[]; checked: CheckedSource[]; loaded?: Validated }> {
  const problems = [...readProblems];
  const parsed: PolicyFile[] = [];
  const checked: CheckedSource[] = [];
  for (const text of texts) {
    const loaded = parsePolicy(text, io);
    problems.push(...loaded.diagnostics);
    parsed.push(...loaded.files ?? []);
    checked.push({
      file: text.source.file, text: text.text, extended: loaded.extended, layer: text.source.layer,
      files: loaded.files ?? [], diagnostics: loaded.diagnostics,
    });
  }
  if (!hasErrors(problems)) {
    const analyzer = await shell();
    for (const policy of parsed) problems.push(...checkExamples(policy, analyzer));
  }
  if (hasErrors(problems)) return { problems, checked: [] };
  return { problems, checked, loaded: { checked, policies: layerPolicies(parsed, problems, checked.flatMap((c) => c.extended)) } };
}

/** A validation's result, reusable by the first load while none of the files it read has changed. */
export interface Validated {
  readonly checked: readonly CheckedSource[];
  readonly policies: LoadedPolicies;
}

/**
 * `validated` when every source (in the same order) and every file it extends still holds the text
 * that was validated — the same parse and example check would come out — else undefined.
 */
export function stillValid(validated: Validated | undefined, sources: readonly PolicySource[]): LoadedPolicies | undefined {
  if (!validated || validated.checked.length !== sources.length) return undefined;
  const same = (file: string, text: string) => {
    try {
      return readFileSync(file, 'utf8') === text;
    } catch {
      return false;
    }
  };
  const unchanged = validated.checked.every((c, i) => c.file === sources[i]!.file && same(c.file, c.text) && c.extended.every((e) => same(e.file, e.text)));
  return unchanged ? validated.policies : undefined;
}
