import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { grantScopeFor } from '../broker/grant-recorder.js';
import { strictest, type Decision } from '../core/decision.js';
import { BrokerError } from '../core/errors.js';
import { compilePolicy, diskExtendsIo, type CompiledPolicy } from '../engine/pipeline.js';
import { assembleEngine, loadShellAnalyzer } from '../engine/engine.js';
import { readPolicyFile, type PolicySource } from '../engine/read-policy.js';
import { brokerDirs, packagePath, type BrokerDirs } from '../platform/dirs.js';
import { formatDiagnostic, hasErrors, type Diagnostic } from '../policy/diagnostics.js';
import { extendedFileOf, type ExtendedFile } from '../policy/extends.js';
import { loadPolicyText } from '../policy/load.js';
import { PROJECT_POLICY_PATH, trustStatus, type TrustStatus } from '../policy/trust.js';
import { nonInteractiveFallback, type PolicySet } from '../policy/types.js';
import { TrustFile } from '../runtime/trust-file.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { single, type ParsedArgs } from './args.js';
import { policySources, systemManagedPolicy } from './policy-sources.js';

interface Io { stdout: (s: string) => void; stderr: (s: string) => void }

/** A policy a layer file builds on through `extends` (directly or through another extended file). */
interface ExtendedEntry {
  /** The bundled policy's name (`default`), or the file's path. */
  readonly name: string;
  readonly file: string;
  /** Its own rules; null when it does not load. */
  readonly rules: number | null;
  /** The chain file that extends it, when that is not the layer file itself. */
  readonly via?: string;
}

/** One file of a layer, as `policy show` reports it. */
interface LayerEntry {
  readonly layer: 'managed' | 'user' | 'project' | 'bundled';
  readonly file: string;
  /**
   * in-force: loaded as a layer; absent: looked for, not there. The bundled default, when it is not a
   * layer itself: extended (in force through another file's `extends`) or not-in-force (replaced).
   */
  readonly state: 'in-force' | 'absent' | 'extended' | 'not-in-force';
  /** The file's own rules (those of what it extends are counted under `extends`). */
  readonly rules: number | null;
  /** What it extends, in the order the chain is combined (extended policies before what extends them). */
  readonly extends: readonly ExtendedEntry[];
  /** Its errors and those of what it extends (warnings are `validate`'s). */
  readonly problems: readonly Diagnostic[];
  /** Bundled default: the layer files whose chain includes it (when not in force: those that do not load). */
  readonly extendedBy?: readonly string[];
  /** Project layer only. */
  readonly trust?: TrustStatus;
  readonly ignoredAllowRules?: readonly string[];
}

interface Effective {
  /** The combined values: strictest across every file of every layer and chain, as a run applies them. */
  readonly default: Decision;
  readonly nonInteractive: string;
  readonly grantScope: 'project' | 'global';
  readonly enforcement: { enforce: number; warn: number; shadow: number };
  readonly modes: { deny: string[]; prefer: string[] };
  readonly unprompted: string;
}

/** `acp-broker policy show [--cwd DIR] [--json]`: what is in force here, and where things live. */
export async function policyCommand(args: ParsedArgs, io: Io): Promise<number> {
  const [action, extra] = args.positionals;
  if (action !== 'show' || extra !== undefined) throw new BrokerError('usage', action === undefined ? 'policy needs an action: show' : `policy: no action \`${[action, extra].filter(Boolean).join(' ')}\` (show)`);
  const cwd = resolve(single(args, '--cwd') ?? process.cwd());
  const dirs = brokerDirs();
  const sources = policySources(args, dirs);
  const shell = await loadShellAnalyzer();
  const layers = describeLayers(args, dirs, sources, cwd, shell);
  // The layers in force exactly as a run composes them (engine → policy manager), never a copy of it.
  const { engine, loaded } = await assembleEngine(sources, dirs, Promise.resolve(shell), () => {}, { watch: false });
  const effective = loaded.ok ? effectiveOf(engine.policies.forWorkspace(cwd), cwd) : null;
  engine.policies.close();
  const places = { grants: join(dirs.config, 'grants.json'), audit: join(dirs.state, 'audit.jsonl'), trust: new TrustFile(dirs.config).path };
  if (args.flags.has('--json')) {
    io.stdout(`${JSON.stringify({ workspace: cwd, layers, effective, ...places }, null, 2)}\n`);
  } else {
    io.stdout(render(cwd, layers, effective, places));
  }
  return layers.some((l) => l.state === 'in-force' && l.problems.length > 0) || !loaded.ok ? 1 : 0;
}

function describeLayers(args: ParsedArgs, dirs: BrokerDirs, sources: readonly PolicySource[], cwd: string, shell: ShellAnalyzer): LayerEntry[] {
  const bundled = packagePath('policies', 'default.yaml');
  const entries: LayerEntry[] = [];
  const managed = sources.filter((s) => s.layer === 'managed');
  if (managed.length === 0) entries.push(absent('managed', systemManagedPolicy()));
  for (const s of managed) entries.push(fileEntry('managed', s.file, shell));
  const users = sources.filter((s) => s.layer === 'user');
  const userFile = join(dirs.config, 'policy.yaml');
  if (!args.options.has('--policy') && !existsSync(userFile)) entries.push(absent('user', userFile));
  for (const s of users) entries.push(fileEntry(s.file === bundled ? 'bundled' : 'user', s.file, shell));
  const project = projectEntry(join(cwd, ...PROJECT_POLICY_PATH), new TrustFile(dirs.config), shell);
  if (!users.some((s) => s.file === bundled)) {
    // Not a layer of its own: in force only through the `extends` of a file that is, and loads.
    const extending = [...entries, project].filter((e) => e.extends.some((x) => x.file === bundled));
    const loads = (e: LayerEntry) => e.rules !== null && e.problems.length === 0;
    entries.push(extending.some(loads)
      ? { ...absent('bundled', bundled), state: 'extended', rules: bundledRuleCount(bundled), extendedBy: extending.filter(loads).map((e) => e.file) }
      : { ...absent('bundled', bundled), state: 'not-in-force', ...(extending.length > 0 ? { extendedBy: extending.map((e) => e.file) } : {}) });
  }
  entries.push(project);
  return entries;
}

function absent(layer: LayerEntry['layer'], file: string): LayerEntry {
  return { layer, file, state: 'absent', rules: null, extends: [], problems: [] };
}

/** A file through the same read and compile stages as a run; a broken file is a problem, never a crash. */
function fileEntry(layer: LayerEntry['layer'], file: string, shell: ShellAnalyzer): LayerEntry {
  const read = readPolicyFile(file);
  if ('diagnostic' in read) return { layer, file, state: 'in-force', rules: null, extends: [], problems: [read.diagnostic] };
  return compiledEntry(layer, file, read.text, compilePolicy({ source: { file, layer: layer === 'bundled' ? 'user' : layer }, text: read.text }, shell));
}

function compiledEntry(layer: LayerEntry['layer'], file: string, text: string, compiled: CompiledPolicy): LayerEntry {
  const problems = compiled.diagnostics.filter((d) => d.severity === 'error');
  const own = compiled.files?.find((f) => f.file === file);
  return { layer, file, state: 'in-force', rules: own?.rules.length ?? null, extends: extendedEntries(file, text, compiled), problems };
}

/**
 * The chain's other files with their own rule counts and who extends them. When the chain loaded,
 * in its combined order; when it did not, every file that was read, each counted on its own.
 */
function extendedEntries(root: string, rootText: string, compiled: CompiledPolicy): ExtendedEntry[] {
  const parents = extendingFiles(root, rootText, compiled.extended);
  const entry = (file: string, rules: number | null): ExtendedEntry => {
    const parent = parents.get(file);
    return { name: nameOf(file), file, rules, ...(parent !== undefined && parent !== root ? { via: parent } : {}) };
  };
  if (compiled.files) return compiled.files.filter((f) => f.file !== root).map((f) => entry(f.file, f.rules.length));
  return compiled.extended.map(({ file, text }) => entry(file, ownRuleCount(file, text)));
}

/** For each extended file, the first file of the chain (in loading order) whose `extends` names it. */
function extendingFiles(root: string, rootText: string, extended: readonly ExtendedFile[]): Map<string, string> {
  const parents = new Map<string, string>();
  for (const { file, text } of [{ file: root, text: rootText }, ...extended]) {
    for (const ref of loadPolicyText(text, file, 'user').extends) {
      const target = extendedFileOf(ref.name, file, diskExtendsIo);
      if (target !== undefined && target !== root && !parents.has(target)) parents.set(target, file);
    }
  }
  return parents;
}

function ownRuleCount(file: string, text: string): number | null {
  const parsed = loadPolicyText(text, file, 'user');
  return hasErrors(parsed.diagnostics) ? null : parsed.policy?.rules.length ?? null;
}

function bundledRuleCount(file: string): number | null {
  const read = readPolicyFile(file);
  return 'diagnostic' in read ? null : ownRuleCount(file, read.text);
}

/** `default` for the package's policies/default.yaml; any other file by its path. */
function nameOf(file: string): string {
  const name = basename(file, '.yaml');
  return file === packagePath('policies', `${name}.yaml`) && diskExtendsIo.bundled.includes(name) ? name : file;
}

function projectEntry(file: string, trust: TrustFile, shell: ShellAnalyzer): LayerEntry {
  if (!existsSync(file)) return absent('project', file);
  const read = readPolicyFile(file);
  if ('diagnostic' in read) return fileEntry('project', file, shell);
  const compiled = compilePolicy({ source: { file, layer: 'project' }, text: read.text }, shell);
  const status = trustStatus(trust.read(), file, read.text);
  // As the policy manager applies it: every allow rule of the project's chain waits for trust.
  const allows = status === 'trusted' ? [] : (compiled.files ?? []).flatMap((f) => f.rules).filter((r) => r.decision === 'allow').map((r) => r.id);
  return { ...compiledEntry('project', file, read.text, compiled), trust: status, ignoredAllowRules: allows };
}

function effectiveOf(policy: PolicySet, cwd: string): Effective {
  // As policy/evaluate.ts combines defaults: strictest of the files'.
  const fallback = policy.files.reduce<Decision>((acc, f) => strictest(acc, f.default), policy.files.length ? 'allow' : 'ask');
  const rules = policy.files.flatMap((f) => f.rules);
  const count = (e: string) => rules.filter((r) => r.enforcement === e).length;
  const unique = (list: string[]) => [...new Set(list)];
  return {
    default: fallback,
    nonInteractive: nonInteractiveFallback(policy),
    grantScope: grantScopeFor(policy, cwd).type,
    enforcement: { enforce: count('enforce'), warn: count('warn'), shadow: count('shadow') },
    modes: { deny: unique(policy.files.flatMap((f) => f.modes?.deny ?? [])), prefer: unique(policy.files.flatMap((f) => f.modes?.prefer ?? [])) },
    unprompted: policy.files.some((f) => f.unprompted === 'stop') ? 'stop' : 'warn',
  };
}

function describeState(entry: LayerEntry): string {
  const rules = (n: number | null) => (n === null ? 'does not load' : `${n} rule${n === 1 ? '' : 's'}`);
  switch (entry.state) {
    case 'absent': return entry.layer === 'user' ? 'not present (the bundled default is used)' : 'not present';
    case 'not-in-force': return entry.extendedBy
      ? `not in force: ${entry.extendedBy.join(', ')}, which extends it, does not load`
      : 'not in force: the user policy replaces it (`extends: [default]` builds on it instead)';
    case 'extended': return `${rules(entry.rules)}, in force through the \`extends\` of ${entry.extendedBy?.join(', ')}`;
    case 'in-force': break;
    default: { const never: never = entry.state; return never; }
  }
  if (entry.trust === undefined) return rules(entry.rules);
  const trust = entry.trust === 'trusted' ? 'trusted'
    : `${entry.trust === 'changed' ? 'changed since you trusted it' : 'not trusted'}${entry.ignoredAllowRules?.length ? `: its allow rules (${entry.ignoredAllowRules.join(', ')}) are ignored until \`acp-broker trust ${resolve(entry.file, '..', '..')}\`` : ''}`;
  return `${rules(entry.rules)}, ${trust}`;
}

function render(cwd: string, layers: readonly LayerEntry[], effective: Effective | null, places: { grants: string; audit: string; trust: string }): string {
  const lines = [`workspace: ${cwd}`, 'layers (for every part of a call the strictest answer wins):'];
  for (const entry of layers) {
    lines.push(`  ${entry.layer.padEnd(8)} ${entry.file}: ${describeState(entry)}`);
    for (const x of entry.extends) {
      const count = x.rules === null ? 'does not load' : `${x.rules} rule${x.rules === 1 ? '' : 's'}`;
      lines.push(`           extends ${x.name}: ${count}${x.name === x.file ? '' : ` (${x.file})`}${x.via === undefined ? '' : `, through ${nameOf(x.via)}`}`);
    }
    for (const problem of entry.problems) lines.push(...formatDiagnostic(problem).split('\n').map((l) => `      ${l}`));
  }
  if (effective === null) {
    lines.push('effective: none — the policy does not load, so `acp-broker run` would not start an agent');
  } else {
    const list = (items: readonly string[]) => (items.length ? items.join(', ') : '(none)');
    const e = effective.enforcement;
    lines.push('effective:',
      `  default:          ${effective.default}`,
      `  non_interactive:  ${effective.nonInteractive}`,
      `  grant_scope:      ${effective.grantScope}`,
      `  enforcement:      ${e.enforce} enforced, ${e.warn} warn, ${e.shadow} shadow`,
      `  modes denied:     ${list(effective.modes.deny)}`,
      `  modes preferred:  ${list(effective.modes.prefer)}`,
      `  unprompted:       ${effective.unprompted}`);
  }
  lines.push(`grants:     ${places.grants}`, `audit log:  ${places.audit}`, `trust:      ${places.trust}`);
  return `${lines.join('\n')}\n`;
}
