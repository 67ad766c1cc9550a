import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compilePolicy, layerPolicies, loadPolicies, stillValid, type Validated } from '../engine/pipeline.js';
import { readPolicyFile, type PolicySource } from '../engine/read-policy.js';
import { formatDiagnostic, type Diagnostic } from '../policy/diagnostics.js';
import { PROJECT_POLICY_PATH, trustStatus } from '../policy/trust.js';
import type { PolicyFile, PolicySet } from '../policy/types.js';
import type { ShellAnalyzer } from '../shell/types.js';
import type { TrustFile } from './trust-file.js';

const WATCH_INTERVAL_MS = 500;

/**
 * The policy in force, per workspace: the managed and user layers (loaded at start, reloaded when
 * their files change), plus the workspace's own project layer. An edit that does not validate, or a
 * file that disappears, leaves the last good policy in force.
 */
export class PolicyManager {
  private base: readonly PolicyFile[] = [];
  private readonly projects = new Map<string, { policy: PolicySet; file: string }>();
  /** Watched file → its stamp when last read, and what to do when it changes. */
  private readonly watched = new Map<string, { stamp: string; onChange: () => void }>();
  private poller: NodeJS.Timeout | undefined;

  constructor(private readonly options: {
    readonly sources: readonly PolicySource[];
    readonly shell: ShellAnalyzer;
    readonly trust: TrustFile;
    readonly log: (message: string) => void;
    readonly watch: boolean;
    /** What start-up just validated: the first load takes it as it is while no file has changed since. */
    readonly validated?: Validated;
  }) {}

  /** The first load: any error means the broker must not start. */
  load(): { ok: boolean; diagnostics: readonly Diagnostic[] } {
    const loaded = stillValid(this.options.validated, this.options.sources) ?? loadPolicies(this.options.sources, this.options.shell);
    if (!loaded.ok) return { ok: false, diagnostics: loaded.diagnostics };
    this.base = loaded.policy.files;
    if (this.options.watch) {
      for (const s of this.options.sources) this.watch(s.file, () => this.reloadBase());
      this.watchExtended(loaded.extended.map((e) => e.file));
      // `acp-broker trust` while a broker runs: re-judge project layers.
      this.watch(this.options.trust.path, () => this.projects.clear());
    }
    return { ok: true, diagnostics: loaded.diagnostics };
  }

  /** The layers in force for a session whose cwd is `workspace`. */
  forWorkspace(workspace: string): PolicySet {
    let project = this.projects.get(workspace);
    if (!project) {
      project = { policy: this.compose(workspace), file: join(workspace, ...PROJECT_POLICY_PATH) };
      if (this.projects.size > 256) this.projects.clear();
      this.projects.set(workspace, project);
      if (this.options.watch) this.watch(project.file, () => this.projects.delete(workspace));
    }
    return project.policy;
  }

  close(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    this.watched.clear();
  }

  private reloadBase(): void {
    const loaded = loadPolicies(this.options.sources, this.options.shell);
    if (!loaded.ok) {
      const problems = loaded.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic).join('\n');
      this.options.log(`acp-broker: the edited policy was rejected; the last good policy stays in force.\n${problems}`);
      return;
    }
    this.base = loaded.policy.files;
    // An edit may extend new files: those are watched from now on (one no longer extended only costs a stat).
    if (this.options.watch) this.watchExtended(loaded.extended.map((e) => e.file));
    this.projects.clear();
    this.options.log(`acp-broker: policy reloaded (${this.options.sources.map((s) => s.file).join(', ')})`);
  }

  private compose(workspace: string): PolicySet {
    return { files: [...this.base, ...this.projectLayer(workspace)] };
  }

  /**
   * The workspace's `.acp-broker/policy.yaml` and the bundled policies it extends (a project may
   * extend nothing else, see policy/extends.ts): it may only tighten until the user trusts its content.
   */
  private projectLayer(workspace: string): PolicyFile[] {
    const file = join(workspace, ...PROJECT_POLICY_PATH);
    if (!existsSync(file)) return [];
    const read = readPolicyFile(file);
    if ('diagnostic' in read) {
      this.options.log(`acp-broker: cannot read the project policy ${file}: ${read.error.message}; asking instead of trusting it`);
      return [failClosedLayer(file)];
    }
    // Read once: the rules applied and the trust judged are of the same bytes.
    const text = read.text;
    const compiled = compilePolicy({ source: { file, layer: 'project' }, text }, this.options.shell);
    const loaded = layerPolicies(compiled.files ?? [], compiled.diagnostics);
    if (!loaded.ok || !compiled.files) {
      const problems = loaded.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic).join('\n');
      this.options.log(`acp-broker: the project policy is invalid; its rules are not applied and undecided requests ask.\n${problems}`);
      return [failClosedLayer(file)];
    }
    const status = trustStatus(this.options.trust.read(), file, text);
    const allowRules = compiled.files.flatMap((f) => f.rules).filter((r) => r.decision === 'allow');
    // A project may never loosen on its own: its default only counts when stricter (strictest wins),
    // and keeping agents' own "always" options is the user's call, not the repository's.
    const tightened = compiled.files.map((f): PolicyFile => ({ ...f, keepAgentAlwaysOptions: false, grantScope: 'project' }));
    if (status === 'trusted' || allowRules.length === 0) return tightened;
    const why = status === 'changed' ? 'it changed since you trusted it' : 'you have not trusted it';
    this.options.log(`acp-broker: ignoring ${allowRules.length} allow rule(s) of ${file} (${allowRules.map((r) => r.id).join(', ')}): ${why}. Review it, then run: acp-broker trust ${workspace}`);
    return tightened.map((f) => ({ ...f, rules: f.rules.filter((r) => r.decision !== 'allow') }));
  }

  /** Files the base layers extend: a change reloads them, exactly like a change of a source. */
  private watchExtended(files: readonly string[]): void {
    for (const file of files) this.watch(file, () => this.reloadBase());
  }

  /**
   * Polls the file's stat against the stamp taken when it was read: simple, portable, sees editors
   * that replace files by rename, and cannot miss an edit made right after loading.
   */
  private watch(file: string, onChange: () => void): void {
    if (this.watched.has(file)) return;
    this.watched.set(file, { stamp: stampOf(file), onChange });
    this.poller ??= setInterval(() => this.poll(), WATCH_INTERVAL_MS).unref();
  }

  private poll(): void {
    for (const [file, entry] of this.watched) {
      const stamp = stampOf(file);
      if (stamp === entry.stamp) continue;
      entry.stamp = stamp;
      entry.onChange();
    }
  }
}

function stampOf(file: string): string {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}:${s.ino}:${s.mode}`;
  } catch (error) {
    return `missing:${(error as NodeJS.ErrnoException).code ?? ''}`;
  }
}

function failClosedLayer(file: string): PolicyFile {
  return { file, layer: 'project', default: 'ask', nonInteractive: 'deny', keepAgentAlwaysOptions: false, grantScope: 'project', rules: [] };
}
