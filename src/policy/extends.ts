import { basename, dirname, resolve } from 'node:path';
import type { SourceLocation } from '../core/errors.js';
import { didYouMean, hasErrors, type Diagnostic } from './diagnostics.js';
import { loadPolicyText, type ExtendsRef, type PolicySetting } from './load.js';
import type { Layer, PolicyFile, Rule } from './types.js';

/**
 * `extends:` — a policy built on others. Each policy it names (a bundled name such as `default`,
 * or a path relative to the extending file) is loaded into the SAME layer, before it: the chain is
 * then just more files of that layer, combined exactly as layers combine (policy/evaluate.ts,
 * modes.ts, grant-recorder.ts) — strictest wins, so extending can only add restrictions and
 * rules, never lift one.
 *
 * - Rule ids: an extended policy's rules are namespaced by where they come from (`default:git-push-force`,
 *   `team:no-deploy` for `./team.yaml`); the extending file's own ids stay as written. An id used
 *   twice across the chain is an error (an explanation must name one rule).
 * - Settings (`default`, `non_interactive`, `grant_scope`, …): only the files that write one take
 *   part; a file that leaves it unset neither loosens nor tightens it. Among those that write it,
 *   strictest wins: `default` deny > ask > allow, `non_interactive` deny > cancel, `grant_scope`
 *   project > global, the shortest `grant_expires_after`, `unprompted` stop > warn, `modes.deny`
 *   lists add up; `agent_always_options: keep` counts if any file says so (as across layers).
 * - Each file is loaded once (a diamond is fine); a cycle, more than MAX_EXTENDS_DEPTH levels, an
 *   unknown bundled name or a file that cannot be read is an error: no policy, nothing starts.
 * - A project policy may extend only bundled policies: `acp-broker trust` vouches for the project
 *   file's text, and another file could change under it.
 */

export const MAX_EXTENDS_DEPTH = 8;

/** The edges resolution needs: reading a file, and the bundled policies. */
export interface ExtendsIo {
  /** The file's text, or why it cannot be read. */
  read(file: string): { text: string } | { error: string };
  /** Names of the bundled policies (policies/NAME.yaml). */
  readonly bundled: readonly string[];
  bundledFile(name: string): string;
}

/** A file read while following `extends`, with the exact text that was used. */
export interface ExtendedFile {
  readonly file: string;
  readonly text: string;
}

export interface PolicyChain {
  /** The extended policies first (each once, depth first), the file itself last; undefined on any error. */
  readonly files: readonly PolicyFile[] | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** Every extended file read (for caches and watchers). */
  readonly extended: readonly ExtendedFile[];
}

interface Loaded {
  readonly policy: PolicyFile;
  readonly settings: ReadonlySet<PolicySetting>;
  /** Undefined for the extending file itself. */
  readonly namespace: string | undefined;
}

export function loadPolicyChain(root: { file: string; text: string; layer: Layer }, io: ExtendsIo): PolicyChain {
  const diagnostics: Diagnostic[] = [];
  const extended: ExtendedFile[] = [];
  const loaded: Loaded[] = [];
  const included = new Set<string>([root.file]);

  const visit = (file: string, text: string, namespace: string | undefined, chain: readonly string[]): void => {
    const result = loadPolicyText(text, file, root.layer);
    diagnostics.push(...result.diagnostics);
    const here = [...chain, file];
    for (const ref of result.extends) {
      const target = resolveRef(ref, file, root.layer, io);
      if ('problem' in target) { diagnostics.push(target.problem); continue; }
      const cycleStart = here.indexOf(target.file);
      if (cycleStart !== -1) {
        diagnostics.push(problem(ref.location, `\`extends\` cycle: ${[...here.slice(cycleStart), target.file].join(' → ')}`,
          'remove one of these `extends` entries: a policy cannot build on itself'));
        continue;
      }
      if (included.has(target.file)) continue;
      if (here.length > MAX_EXTENDS_DEPTH) {
        diagnostics.push(problem(ref.location, `\`extends\` nested more than ${MAX_EXTENDS_DEPTH} deep: ${[...here, target.file].join(' → ')}`,
          'extend the policies you need directly from fewer levels'));
        continue;
      }
      const read = io.read(target.file);
      if ('error' in read) {
        diagnostics.push(problem(ref.location, `cannot read \`${ref.name}\` (${target.file}), which this policy extends: ${read.error}`,
          'fix the path (relative to this file) or remove the entry; a policy is never used without what it extends'));
        continue;
      }
      included.add(target.file);
      extended.push({ file: target.file, text: read.text });
      visit(target.file, read.text, target.namespace, here);
    }
    if (result.policy) loaded.push({ policy: result.policy, settings: result.settings, namespace });
  };
  visit(root.file, root.text, undefined, []);

  if (hasErrors(diagnostics)) return { files: undefined, diagnostics, extended };
  const files = combineSettings(loaded.map(namespaced));
  const duplicates = duplicateIds(files.map((f) => f.policy));
  diagnostics.push(...duplicates);
  return { files: duplicates.length > 0 ? undefined : files.map((f) => f.policy), diagnostics, extended };
}

/** Whether an `extends` entry names a file (a `/` or a YAML extension) rather than a bundled policy. */
function namesAPath(name: string): boolean {
  return /[/\\]/.test(name) || /\.ya?ml$/i.test(name);
}

/** The file an `extends` entry of `from` names, as resolution reads it; undefined for an unknown bundled name. */
export function extendedFileOf(name: string, from: string, io: ExtendsIo): string | undefined {
  if (namesAPath(name)) return resolve(dirname(from), name);
  return io.bundled.includes(name) ? io.bundledFile(name) : undefined;
}

function resolveRef(ref: ExtendsRef, from: string, layer: Layer, io: ExtendsIo): { file: string; namespace: string } | { problem: Diagnostic } {
  if (!namesAPath(ref.name)) {
    if (io.bundled.includes(ref.name)) return { file: io.bundledFile(ref.name), namespace: ref.name };
    const guess = didYouMean(ref.name, io.bundled);
    return { problem: problem(ref.location, `\`extends\`: there is no bundled policy \`${ref.name}\``,
      `${guess ? `did you mean \`${guess}\`? ` : ''}bundled policies: ${io.bundled.join(', ')}; a file is named by a path with a \`/\` or a .yaml extension`) };
  }
  if (layer === 'project') {
    return { problem: problem(ref.location, `\`extends\`: a project policy may extend only bundled policies (${io.bundled.join(', ')}), not \`${ref.name}\``,
      '`acp-broker trust` vouches for this file\'s text, not for another file: copy the rules in, or extend that file from your user policy') };
  }
  const file = extendedFileOf(ref.name, from, io)!;
  return { file, namespace: basename(file).replace(/\.ya?ml$/i, '').replace(/[^A-Za-z0-9_.-]/g, '-') || 'extended' };
}

/** An extended policy's rule ids, prefixed with its namespace. */
function namespaced(entry: Loaded): Loaded {
  if (entry.namespace === undefined) return entry;
  const prefix = `${entry.namespace}:`;
  const rules: Rule[] = entry.policy.rules.map((rule) => ({ ...rule, id: prefix + rule.id }));
  return { ...entry, policy: { ...entry.policy, rules } };
}

/**
 * A setting a file leaves unset takes the value that cannot change the combination (the loosest),
 * when another file of the chain writes it; when none does, every file keeps the loader's default.
 * The combinations themselves are those of the layers (evaluate.ts, types.ts, grant-recorder.ts).
 */
function combineSettings(files: readonly Loaded[]): Loaded[] {
  if (files.length < 2) return [...files];
  const written = (key: PolicySetting) => files.some((f) => f.settings.has(key));
  const neutral: Partial<PolicyFile> = {
    ...(written('default') ? { default: 'allow' } : {}),
    ...(written('non_interactive') ? { nonInteractive: 'cancel' } : {}),
    ...(written('grant_scope') ? { grantScope: 'global' } : {}),
  };
  return files.map((f) => {
    const unset: Partial<PolicyFile> = {};
    if (!f.settings.has('default') && neutral.default) Object.assign(unset, { default: neutral.default });
    if (!f.settings.has('non_interactive') && neutral.nonInteractive) Object.assign(unset, { nonInteractive: neutral.nonInteractive });
    if (!f.settings.has('grant_scope') && neutral.grantScope) Object.assign(unset, { grantScope: neutral.grantScope });
    return { ...f, policy: { ...f.policy, ...unset } };
  });
}

/** Ids used by rules of two different files of the chain (within one file, load.ts warns). */
function duplicateIds(files: readonly PolicyFile[]): Diagnostic[] {
  const first = new Map<string, Rule>();
  const out: Diagnostic[] = [];
  for (const rule of files.flatMap((f) => f.rules)) {
    const earlier = first.get(rule.id);
    if (!earlier) { first.set(rule.id, rule); continue; }
    if (earlier.file === rule.file) continue;
    out.push({ ...problem(rule.location, `rule id \`${rule.id}\` is also the id of a rule of ${earlier.file}:${earlier.location.line}, which this policy extends`,
      'rename this rule: an explanation must name exactly one rule'), ruleId: rule.id });
  }
  return out;
}

function problem(location: SourceLocation, message: string, hint: string): Diagnostic {
  return { severity: 'error', code: 'bad_extends', message, location, hint };
}
