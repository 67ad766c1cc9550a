import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { strictest, type Decision } from '../core/decision.js';
import { BrokerError } from '../core/errors.js';
import { compilePolicy } from '../engine/pipeline.js';
import { assembleEngine, loadShellAnalyzer } from '../engine/engine.js';
import { readPolicyFile, type PolicySource } from '../engine/read-policy.js';
import { brokerDirs, packagePath, type BrokerDirs } from '../platform/dirs.js';
import { formatDiagnostic, type Diagnostic } from '../policy/diagnostics.js';
import { PROJECT_POLICY_PATH, trustStatus, type TrustStatus } from '../policy/trust.js';
import { nonInteractiveFallback, type PolicySet } from '../policy/types.js';
import { TrustFile } from '../runtime/trust-file.js';
import type { ShellAnalyzer } from '../shell/types.js';
import { single, type ParsedArgs } from './args.js';
import { policySources, systemManagedPolicy } from './policy-sources.js';

interface Io { stdout: (s: string) => void; stderr: (s: string) => void }

/** One file of a layer, as `policy show` reports it. */
interface LayerEntry {
  readonly layer: 'managed' | 'user' | 'project' | 'bundled';
  readonly file: string;
  /** in-force: loaded as a layer; absent: looked for, not there; not-a-layer: the bundled default beside a user policy. */
  readonly state: 'in-force' | 'absent' | 'not-a-layer';
  readonly rules: number | null;
  /** Its errors (warnings are `validate`'s). */
  readonly problems: readonly Diagnostic[];
  /** Project layer only. */
  readonly trust?: TrustStatus;
  readonly ignoredAllowRules?: readonly string[];
}

interface Effective {
  readonly default: Decision;
  readonly nonInteractive: string;
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
  const effective = loaded.ok ? effectiveOf(engine.policies.forWorkspace(cwd)) : null;
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
  if (managed.length === 0) entries.push({ layer: 'managed', file: systemManagedPolicy(), state: 'absent', rules: null, problems: [] });
  for (const s of managed) entries.push(fileEntry('managed', s.file, shell));
  const users = sources.filter((s) => s.layer === 'user');
  const userFile = join(dirs.config, 'policy.yaml');
  const usesBundled = !args.options.has('--policy') && !existsSync(userFile);
  if (usesBundled) entries.push({ layer: 'user', file: userFile, state: 'absent', rules: null, problems: [] });
  for (const s of users) entries.push(fileEntry(s.file === bundled ? 'bundled' : 'user', s.file, shell));
  if (!users.some((s) => s.file === bundled)) entries.push({ layer: 'bundled', file: bundled, state: 'not-a-layer', rules: null, problems: [] });
  entries.push(projectEntry(join(cwd, ...PROJECT_POLICY_PATH), new TrustFile(dirs.config), shell));
  return entries;
}

/** A file through the same read and compile stages as a run; a broken file is a problem, never a crash. */
function fileEntry(layer: LayerEntry['layer'], file: string, shell: ShellAnalyzer, text?: string): LayerEntry {
  const read = text === undefined ? readPolicyFile(file) : { text };
  if ('diagnostic' in read) return { layer, file, state: 'in-force', rules: null, problems: [read.diagnostic] };
  const compiled = compilePolicy({ source: { file, layer: layer === 'bundled' ? 'user' : layer }, text: read.text }, shell);
  const problems = compiled.diagnostics.filter((d) => d.severity === 'error');
  return { layer, file, state: 'in-force', rules: compiled.files?.at(-1)?.rules.length ?? null, problems };
}

function projectEntry(file: string, trust: TrustFile, shell: ShellAnalyzer): LayerEntry {
  if (!existsSync(file)) return { layer: 'project', file, state: 'absent', rules: null, problems: [] };
  const read = readPolicyFile(file);
  if ('diagnostic' in read) return fileEntry('project', file, shell);
  const entry = fileEntry('project', file, shell, read.text);
  const compiled = compilePolicy({ source: { file, layer: 'project' }, text: read.text }, shell);
  const status = trustStatus(trust.read(), file, read.text);
  const allows = status === 'trusted' ? [] : (compiled.files?.at(-1)?.rules ?? []).filter((r) => r.decision === 'allow').map((r) => r.id);
  return { ...entry, trust: status, ignoredAllowRules: allows };
}

function effectiveOf(policy: PolicySet): Effective {
  // As policy/evaluate.ts combines defaults: strictest of the layers'.
  const fallback = policy.files.reduce<Decision>((acc, f) => strictest(acc, f.default), policy.files.length ? 'allow' : 'ask');
  const rules = policy.files.flatMap((f) => f.rules);
  const count = (e: string) => rules.filter((r) => r.enforcement === e).length;
  const unique = (list: string[]) => [...new Set(list)];
  return {
    default: fallback,
    nonInteractive: nonInteractiveFallback(policy),
    enforcement: { enforce: count('enforce'), warn: count('warn'), shadow: count('shadow') },
    modes: { deny: unique(policy.files.flatMap((f) => f.modes?.deny ?? [])), prefer: unique(policy.files.flatMap((f) => f.modes?.prefer ?? [])) },
    unprompted: policy.files.some((f) => f.unprompted === 'stop') ? 'stop' : 'warn',
  };
}

function describeState(entry: LayerEntry): string {
  if (entry.state === 'absent') return entry.layer === 'user' ? 'not present (the bundled default is used)' : 'not present';
  if (entry.state === 'not-a-layer') return 'not loaded as a layer (a policy with `extends: [default]` builds on it)';
  const rules = entry.rules === null ? 'does not load' : `${entry.rules} rule${entry.rules === 1 ? '' : 's'}`;
  if (entry.trust === undefined) return rules;
  const trust = entry.trust === 'trusted' ? 'trusted'
    : `${entry.trust === 'changed' ? 'changed since you trusted it' : 'not trusted'}${entry.ignoredAllowRules?.length ? `: its allow rules (${entry.ignoredAllowRules.join(', ')}) are ignored until \`acp-broker trust ${resolve(entry.file, '..', '..')}\`` : ''}`;
  return `${rules}, ${trust}`;
}

function render(cwd: string, layers: readonly LayerEntry[], effective: Effective | null, places: { grants: string; audit: string; trust: string }): string {
  const lines = [`workspace: ${cwd}`, 'layers (for every part of a call the strictest answer wins):'];
  for (const entry of layers) {
    lines.push(`  ${entry.layer.padEnd(8)} ${entry.file}: ${describeState(entry)}`);
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
      `  enforcement:      ${e.enforce} enforced, ${e.warn} warn, ${e.shadow} shadow`,
      `  modes denied:     ${list(effective.modes.deny)}`,
      `  modes preferred:  ${list(effective.modes.prefer)}`,
      `  unprompted:       ${effective.unprompted}`);
  }
  lines.push(`grants:     ${places.grants}`, `audit log:  ${places.audit}`, `trust:      ${places.trust}`);
  return `${lines.join('\n')}\n`;
}
