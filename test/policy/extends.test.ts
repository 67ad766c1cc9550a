import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { grantScopeFor } from '../../src/broker/grant-recorder.js';
import type { CallFacts } from '../../src/core/facts.js';
import { diskExtendsIo, loadPolicies } from '../../src/engine/pipeline.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { formatDiagnostic } from '../../src/policy/diagnostics.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicyChain, MAX_EXTENDS_DEPTH } from '../../src/policy/extends.js';
import { nonInteractiveFallback, type PolicySet } from '../../src/policy/types.js';
import { PolicyManager } from '../../src/runtime/policy-manager.js';
import { TrustFile } from '../../src/runtime/trust-file.js';
import { startEngine } from '../../src/startup/start-engine.js';
import { spawnBroker, tempDir } from '../helpers/cli.js';
import { shell } from '../helpers/harness.js';

const managers: PolicyManager[] = [];
afterEach(() => { for (const m of managers.splice(0)) m.close(); });

/** Files written into a fresh directory; their absolute paths by name. */
function write(files: Record<string, string>, dir = tempDir()): Record<string, string> & { dir: string } {
  const paths: Record<string, string> = {};
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
    paths[name] = join(dir, name);
  }
  return Object.assign(paths, { dir });
}

const rule = (id: string, decision: string, command: string) => `  - id: ${id}\n    decision: ${decision}\n    match: { command: ["${command}"] }\n`;

async function decideWith(policy: PolicySet, command: string) {
  const facts: CallFacts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command } },
    { workspace: '/w', home: '/home/u', agent: undefined, shell: await shell(), canonicalize: lexicalOnly, fileExists: () => false, listTree: () => [] });
  return evaluate(policy, facts, { home: '/home/u' });
}

async function load(file: string, layer: 'user' | 'managed' = 'user') {
  const loaded = loadPolicies([{ file, layer }], await shell());
  if (!loaded.ok) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
  return loaded;
}

const errorsOf = (file: string, text: string, layer: 'user' | 'project' = 'user') =>
  loadPolicyChain({ file, text, layer }, diskExtendsIo).diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);

describe('extends: a policy built on the bundled default keeps its denies', () => {
  const MINE = `version: 1\nextends: [default]\nrules:\n${rule('build', 'allow', 'make build')}`;

  it('through `check`: git push --force and rm -rf ~ are still denied, the user\'s own rule applies', async () => {
    const f = write({
      'mine.yaml': MINE,
      'alone.yaml': `version: 1\nrules:\n${rule('build', 'allow', 'make build')}`,
      'push.json': JSON.stringify({ toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'git push --force origin main' } } }),
      'rm.json': JSON.stringify({ toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'rm -rf ~' } } }),
      'build.json': JSON.stringify({ toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'make build' } } }),
    });
    const check = async (policy: string, request: string) => {
      const run = spawnBroker(['check', '--policy', f[policy]!, '--cwd', f.dir, f[request]!], { ACP_BROKER_HOME: tempDir() });
      const { code } = await run.exit;
      return { code, out: run.stdout().toString() };
    };
    const push = await check('mine.yaml', 'push.json');
    expect(push.code).toBe(1);
    expect(push.out).toContain('rule default:destructive denies git push --force origin main');
    expect(await check('mine.yaml', 'rm.json')).toMatchObject({ code: 1 });
    expect(await check('mine.yaml', 'build.json')).toMatchObject({ code: 0 });
    // The same rules without `extends` replace the bundled policy: the force push only asks.
    expect(await check('alone.yaml', 'push.json')).toMatchObject({ code: 3 });
  }, 30_000);

  it('through decide: the extended policy is layered under the file, in the same layer, strictest wins', async () => {
    const f = write({ 'mine.yaml': `version: 1\nextends: default\nrules:\n${rule('push-ok', 'allow', 'git push --force')}` });
    const { policy } = await load(f['mine.yaml']!);
    expect(policy.files.map((p) => [p.file, p.layer])).toEqual([[diskExtendsIo.bundledFile('default'), 'user'], [f['mine.yaml'], 'user']]);
    // The user's allow does not lift the bundled deny.
    const push = await decideWith(policy, 'git push --force origin main');
    expect(push).toMatchObject({ decision: 'deny', source: { type: 'rule', ruleId: 'default:destructive', layer: 'user' } });
    expect((await decideWith(policy, 'rm -rf ~')).decision).toBe('deny');
    expect((await decideWith(policy, 'git status')).source).toMatchObject({ ruleId: 'default:read-only-commands' });
  });
});

describe('extends: paths, namespaces, settings', () => {
  it('paths are relative to the extending file; rule ids are namespaced by the file they come from, nested too', async () => {
    const f = write({
      'user/mine.yaml': `version: 1\nextends: ../team/team.yaml\nrules:\n${rule('mine', 'ask', 'curl')}`,
      'team/team.yaml': `version: 1\nextends: [default, ./deploy.yml]\nrules:\n${rule('no-npm-publish', 'deny', 'npm publish')}`,
      'team/deploy.yml': `version: 1\nrules:\n${rule('no-deploy', 'deny', 'make deploy')}`,
    });
    const loaded = await load(f['user/mine.yaml']!);
    expect(loaded.policy.files.map((p) => p.file)).toEqual([diskExtendsIo.bundledFile('default'), f['team/deploy.yml'], f['team/team.yaml'], f['user/mine.yaml']]);
    const ids = loaded.policy.files.flatMap((p) => p.rules.map((r) => r.id));
    expect(ids).toContain('default:destructive');
    expect(ids.slice(-3)).toEqual(['deploy:no-deploy', 'team:no-npm-publish', 'mine']);
    expect(loaded.extended.map((e) => [e.file, e.text === readFileSync(e.file, 'utf8')])).toEqual([
      [f['team/team.yaml'], true], [diskExtendsIo.bundledFile('default'), true], [f['team/deploy.yml'], true]]);
    expect((await decideWith(loaded.policy, 'make deploy')).source).toMatchObject({ ruleId: 'deploy:no-deploy' });
  });

  it('a policy reached twice (a diamond) is loaded once', async () => {
    const f = write({
      'a.yaml': 'version: 1\nextends: [./b.yaml, ./c.yaml]\n',
      'b.yaml': 'version: 1\nextends: ./d.yaml\n', 'c.yaml': 'version: 1\nextends: ./d.yaml\n',
      'd.yaml': `version: 1\nrules:\n${rule('x', 'deny', 'x')}`,
    });
    const { policy } = await load(f['a.yaml']!);
    expect(policy.files.map((p) => p.file)).toEqual([f['d.yaml'], f['b.yaml'], f['c.yaml'], f['a.yaml']]);
  });

  it('settings: only files that write one take part, and the strictest of those wins', async () => {
    const f = write({
      'strict.yaml': 'version: 1\ndefault: deny\nnon_interactive: deny\n',
      'loose.yaml': 'version: 1\nextends: ./strict.yaml\ndefault: allow\nnon_interactive: cancel\ngrant_scope: global\n',
      'global.yaml': 'version: 1\nextends: default\ngrant_scope: global\nnon_interactive: cancel\n',
      'plain.yaml': 'version: 1\nextends: ./global.yaml\n',
    });
    const loose = (await load(f['loose.yaml']!)).policy;
    expect((await decideWith(loose, 'frobnicate')).reason).toBe('no rule decides frobnicate; policy default is deny');
    expect(nonInteractiveFallback(loose)).toBe('deny');
    expect(grantScopeFor(loose, '/w')).toEqual({ type: 'global' });
    // The bundled default says nothing about grant_scope: the user's `global` stands. It does say
    // `non_interactive: deny`: the user's `cancel` cannot loosen that.
    const global = (await load(f['global.yaml']!)).policy;
    expect(grantScopeFor(global, '/w')).toEqual({ type: 'global' });
    expect(nonInteractiveFallback(global)).toBe('deny');
    expect((await decideWith(global, 'frobnicate')).decision).toBe('ask');
    expect(grantScopeFor((await load(f['plain.yaml']!)).policy, '/w')).toEqual({ type: 'global' });
  });

  it('modes and unprompted add up along the chain', async () => {
    const f = write({ 'mine.yaml': 'version: 1\nextends: ci-strict\nunprompted: warn\n' });
    const { policy } = await load(f['mine.yaml']!);
    expect(policy.files.some((p) => p.unprompted === 'stop')).toBe(true);
    expect(policy.files.flatMap((p) => p.modes?.deny ?? [])).toContain('bypassPermissions');
  });
});

describe('extends: every problem is an error (nothing starts), at the entry that causes it', () => {
  it('an unknown bundled name, with a did-you-mean', () => {
    expect(errorsOf('/x/p.yaml', 'version: 1\nextends: [defualt]\n')).toEqual([
      'p.yaml:2:11: error: `extends`: there is no bundled policy `defualt`\n'
      + '  hint: did you mean `default`? bundled policies: ci-strict, default, enterprise-baseline; a file is named by a path with a `/` or a .yaml extension',
    ].map((s) => `/x/${s}`));
  });

  it('an empty or malformed `extends`', () => {
    expect(errorsOf('/x/p.yaml', 'version: 1\nextends: []\n')).toEqual(['/x/p.yaml:2:10: error: `extends` is an empty list\n  hint: name the policies this one builds on, e.g. `extends: [default]`, or remove the key']);
    expect(errorsOf('/x/p.yaml', 'version: 1\nextends: { name: default }\n')).toEqual(['/x/p.yaml:2:10: error: `extends` must be a string']);
  });

  it('a file that cannot be read', () => {
    const f = write({ 'p.yaml': 'version: 1\nextends:\n  - default\n  - ./team.yaml\n' });
    expect(errorsOf(f['p.yaml']!, readFileSync(f['p.yaml']!, 'utf8'))).toEqual([
      `${f['p.yaml']}:4:5: error: cannot read \`./team.yaml\` (${join(f.dir, 'team.yaml')}), which this policy extends: no such file or directory\n`
      + '  hint: fix the path (relative to this file) or remove the entry; a policy is never used without what it extends',
    ]);
  });

  it('a cycle, with the chain', () => {
    const f = write({ 'a.yaml': 'version: 1\nextends: ./b.yaml\n', 'b.yaml': 'version: 1\nrules: []\nextends: [./a.yaml]\n' });
    expect(errorsOf(f['a.yaml']!, readFileSync(f['a.yaml']!, 'utf8'))).toEqual([
      `${f['b.yaml']}:3:11: error: \`extends\` cycle: ${f['a.yaml']} → ${f['b.yaml']} → ${f['a.yaml']}\n`
      + '  hint: remove one of these `extends` entries: a policy cannot build on itself',
    ]);
    const self = write({ 'p.yaml': 'version: 1\nextends: p.yaml\n' });
    expect(errorsOf(self['p.yaml']!, 'version: 1\nextends: p.yaml\n')[0]).toContain(`\`extends\` cycle: ${self['p.yaml']} → ${self['p.yaml']}\n`);
  });

  it(`more than ${MAX_EXTENDS_DEPTH} levels`, () => {
    const files: Record<string, string> = {};
    for (let i = 0; i <= MAX_EXTENDS_DEPTH + 1; i++) files[`${i}.yaml`] = `version: 1\nextends: ./${i + 1}.yaml\n`;
    files[`${MAX_EXTENDS_DEPTH + 2}.yaml`] = 'version: 1\n';
    const f = write(files);
    const errors = errorsOf(f['0.yaml']!, files['0.yaml']!);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^${f[`${MAX_EXTENDS_DEPTH}.yaml`]}:2:10: error: \`extends\` nested more than ${MAX_EXTENDS_DEPTH} deep: ${f['0.yaml']} → `));
  });

  it('an error inside an extended file, at its own position', () => {
    const f = write({ 'p.yaml': 'version: 1\nextends: ./base.yaml\n', 'base.yaml': 'version: 1\ndefualt: deny\n' });
    expect(errorsOf(f['p.yaml']!, 'version: 1\nextends: ./base.yaml\n')).toEqual([`${f['base.yaml']}:2:1: error: policy: unknown key \`defualt\`\n  hint: did you mean \`default\`?`]);
  });

  it('a rule id used twice across the chain', () => {
    const f = write({ 'p.yaml': `version: 1\nextends: ./team.yaml\nrules:\n${rule('team:x', 'deny', 'y')}`, 'team.yaml': `version: 1\nrules:\n${rule('x', 'deny', 'x')}` });
    expect(errorsOf(f['p.yaml']!, readFileSync(f['p.yaml']!, 'utf8'))).toEqual([
      `${f['p.yaml']}:4:5: error: rule id \`team:x\` is also the id of a rule of ${f['team.yaml']}:3, which this policy extends\n`
      + '  hint: rename this rule: an explanation must name exactly one rule',
    ]);
  });

  it('a project policy may extend bundled policies only', () => {
    expect(errorsOf('/w/.acp-broker/policy.yaml', 'version: 1\nextends: ../shared.yaml\n', 'project')).toEqual([
      '/w/.acp-broker/policy.yaml:2:10: error: `extends`: a project policy may extend only bundled policies (ci-strict, default, enterprise-baseline), not `../shared.yaml`\n'
      + '  hint: `acp-broker trust` vouches for this file\'s text, not for another file: copy the rules in, or extend that file from your user policy',
    ]);
    expect(errorsOf('/w/.acp-broker/policy.yaml', 'version: 1\nextends: default\n', 'project')).toEqual([]);
  });
});

describe('extends in validate', () => {
  it('counts the extended rules, reports problems of extended files after the file\'s own, and checks a project policy as a project policy', async () => {
    const f = write({
      'mine.yaml': `version: 1\nextends: [default, ./base.yaml]\nrules:\n${rule('build', 'allow', 'make build')}`,
      'base.yaml': `version: 1\nrules:\n${rule('x', 'deny', 'make deploy')}`,
      'ws/.acp-broker/policy.yaml': 'version: 1\nextends: ../../base.yaml\n',
    });
    const validate = async (file: string) => {
      const run = spawnBroker(['validate', file], { ACP_BROKER_HOME: tempDir() });
      const { code } = await run.exit;
      return { code, out: run.stdout().toString(), err: run.stderr() };
    };
    expect(await validate(f['mine.yaml']!)).toEqual({ code: 0, out: '', err: `${f['mine.yaml']}: ok (1 rule + 11 from the policies it extends)\n0 error(s), 0 warning(s)\n` });
    const project = await validate(f['ws/.acp-broker/policy.yaml']!);
    expect(project.code).toBe(1);
    expect(project.out).toContain(`${f['ws/.acp-broker/policy.yaml']}:2:10: error: \`extends\`: a project policy may extend only bundled policies`);
  }, 30_000);
});

describe('extends at run time', () => {
  it('a running broker reloads when an extended file changes, and keeps the last good policy when it breaks', async () => {
    const f = write({ 'mine.yaml': 'version: 1\nextends: ./base.yaml\n', 'base.yaml': `version: 1\nrules:\n${rule('x', 'allow', 'make')}` });
    const logs: string[] = [];
    const manager = new PolicyManager({ sources: [{ file: f['mine.yaml']!, layer: 'user' }], shell: await shell(), trust: new TrustFile(join(f.dir, 'config')), log: (m) => logs.push(m), watch: true });
    managers.push(manager);
    expect(manager.load().ok).toBe(true);
    expect((await decideWith(manager.forWorkspace('/w'), 'make')).decision).toBe('allow');
    writeFileSync(f['base.yaml']!, `version: 1\nrules:\n${rule('x', 'deny', 'make')}  # edited\n`);
    await vi.waitFor(async () => expect((await decideWith(manager.forWorkspace('/w'), 'make')).decision).toBe('deny'), { timeout: 10_000, interval: 100 });
    writeFileSync(f['base.yaml']!, 'version: 1\nrules: [oops\n');
    await vi.waitFor(() => expect(logs.join('\n')).toContain('the edited policy was rejected'), { timeout: 10_000, interval: 100 });
    expect((await decideWith(manager.forWorkspace('/w'), 'make')).decision).toBe('deny');
  });

  it('a project policy extending a bundled one: its bundled allow rules wait for trust like its own', async () => {
    const dir = tempDir();
    const workspace = join(dir, 'ws');
    const f = write({ 'user.yaml': 'version: 1\n', 'ws/.acp-broker/policy.yaml': 'version: 1\nextends: default\n' }, dir);
    const logs: string[] = [];
    const manager = new PolicyManager({ sources: [{ file: f['user.yaml']!, layer: 'user' }], shell: await shell(), trust: new TrustFile(join(dir, 'config')), log: (m) => logs.push(m), watch: false });
    managers.push(manager);
    expect(manager.load().ok).toBe(true);
    const policy = manager.forWorkspace(workspace);
    expect(policy.files.map((p) => p.layer)).toEqual(['user', 'project', 'project']);
    expect(policy.files.flatMap((p) => p.rules).some((r) => r.decision === 'allow')).toBe(false);
    expect((await decideWith(policy, 'git push --force')).decision).toBe('deny');
    expect(logs.join('\n')).toContain('default:read-only-commands');
  });

  it('start-up does not reuse a check when an extended file changed (a broken base starts nothing)', async () => {
    const good = `version: 1\nrules:\n${rule('x', 'deny', 'make')}    examples: { match: [{ command: "make" }] }\n`;
    const f = write({ 'mine.yaml': 'version: 1\nextends: ./base.yaml\n', 'base.yaml': good });
    const dirs = { config: join(f.dir, 'config'), state: join(f.dir, 'state'), home: f.dir };
    const sources = [{ file: f['mine.yaml']!, layer: 'user' as const }];
    let stderr = '';
    const first = await startEngine(sources, dirs, (s) => { stderr += s; });
    expect(first).toBeDefined();
    (await first!.ready).policies.close();
    const record = JSON.parse(readFileSync(join(dirs.state, 'checked-policies.json'), 'utf8')) as { policies: unknown[] };
    expect(record.policies).toEqual([{ file: f['mine.yaml'], text: 'version: 1\nextends: ./base.yaml\n', extended: [{ file: f['base.yaml'], text: good }] }]);
    // Same extending file, base now with a failing example: validated again, and refused.
    writeFileSync(f['base.yaml']!, good.replace('command: "make"', 'command: "cmake"'));
    expect(await startEngine(sources, dirs, (s) => { stderr += s; })).toBeUndefined();
    expect(stderr).toContain(`${f['base.yaml']}:6:25: error: rule \`base:x\`: example {"command":"cmake"} should match but does not`);
    expect(stderr).toContain('should match but does not');
  });
});
