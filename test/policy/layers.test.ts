import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/core/facts.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { PolicyManager } from '../../src/runtime/policy-manager.js';
import { TrustFile } from '../../src/runtime/trust-file.js';
import { shell } from '../helpers/harness.js';
import { tempDir } from '../helpers/cli.js';

const managers: PolicyManager[] = [];
afterEach(() => { for (const m of managers.splice(0)) m.close(); });

async function setup(files: { managed?: string; user: string; project?: string }, watch = false) {
  const dir = tempDir();
  const workspace = join(dir, 'project');
  mkdirSync(join(workspace, '.acp-broker'), { recursive: true });
  const sources = [];
  if (files.managed) { writeFileSync(join(dir, 'managed.yaml'), files.managed); sources.push({ file: join(dir, 'managed.yaml'), layer: 'managed' as const }); }
  writeFileSync(join(dir, 'user.yaml'), files.user);
  sources.push({ file: join(dir, 'user.yaml'), layer: 'user' as const });
  if (files.project) writeFileSync(join(workspace, '.acp-broker', 'policy.yaml'), files.project);
  const logs: string[] = [];
  const trust = new TrustFile(join(dir, 'config'));
  const manager = new PolicyManager({ sources, shell: await shell(), trust, log: (m) => logs.push(m), watch });
  managers.push(manager);
  expect(manager.load().ok).toBe(true);
  const analyzer = await shell();
  const decide = (command: string) => {
    const facts: CallFacts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command } }, { workspace, home: '/home/u', agent: undefined, shell: analyzer, canonicalize: lexicalOnly, fileExists: () => false });
    return evaluate(manager.forWorkspace(workspace), facts, { home: '/home/u' });
  };
  /** A new broker process: a fresh manager over the same files and trust records. */
  const restart = async () => {
    const fresh = new PolicyManager({ sources, shell: analyzer, trust, log: (m) => logs.push(m), watch: false });
    managers.push(fresh);
    fresh.load();
    return (command: string) => evaluate(fresh.forWorkspace(workspace), extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command } }, { workspace, home: '/home/u', agent: undefined, shell: analyzer, canonicalize: lexicalOnly, fileExists: () => false }), { home: '/home/u' });
  };
  return { dir, workspace, manager, decide, logs, trust, restart };
}

const rule = (id: string, decision: string, command: string) => `  - id: ${id}\n    decision: ${decision}\n    match: { command: ["${command}"] }\n`;
const policy = (...rules: string[]) => `version: 1\ndefault: ask\nrules:\n${rules.join('')}`;

describe('layers: strictest wins, and only the managed layer cannot be loosened', () => {
  it('a managed ask beats a user allow', async () => {
    const s = await setup({ managed: policy(rule('net-asks', 'ask', 'curl')), user: policy(rule('curl-ok', 'allow', 'curl')) });
    expect(s.decide('curl https://x.example')).toMatchObject({ decision: 'ask', source: { type: 'rule', ruleId: 'net-asks', layer: 'managed' } });
  });

  it('a project deny tightens the user policy', async () => {
    const s = await setup({ user: policy(rule('make-ok', 'allow', 'make')), project: policy(rule('no-deploy', 'deny', 'make deploy')) });
    expect(s.decide('make build').decision).toBe('allow');
    expect(s.decide('make deploy')).toMatchObject({ decision: 'deny', source: { type: 'rule', ruleId: 'no-deploy', layer: 'project' } });
  });

  it('an untrusted project allow rule is ignored and reported; trusted, it applies; changed, it is untrusted again', async () => {
    const projectText = policy(rule('project-make', 'allow', 'make check'));
    const s = await setup({ user: 'version: 1\ndefault: ask\nrules: []\n', project: projectText });
    expect(s.decide('make check').decision).toBe('ask');
    expect(s.logs.join('\n')).toContain('ignoring 1 allow rule(s)');
    expect(s.logs.join('\n')).toContain(`acp-broker trust ${s.workspace}`);

    const projectFile = join(s.workspace, '.acp-broker', 'policy.yaml');
    s.trust.trust(projectFile, projectText);
    const afterTrust = await s.restart();
    expect(afterTrust('make check')).toMatchObject({ decision: 'allow', source: { type: 'rule', ruleId: 'project-make', layer: 'project' } });

    writeFileSync(projectFile, `${projectText}# one more line\n`);
    const afterChange = await s.restart();
    expect(afterChange('make check').decision).toBe('ask');
    expect(s.logs.at(-1)).toContain('it changed since you trusted it');
  });

  it('a project policy cannot loosen the default or keep agents\' always options', async () => {
    const s = await setup({ user: 'version: 1\ndefault: ask\nrules: []\n', project: 'version: 1\ndefault: allow\nagent_always_options: keep\nrules: []\n' });
    expect(s.decide('make whatever').decision).toBe('ask');
    expect(s.manager.forWorkspace(s.workspace).files.every((f) => !f.keepAgentAlwaysOptions)).toBe(true);
  });

  it('an invalid project policy is reported and makes undecided requests ask (fail closed)', async () => {
    const s = await setup({ user: 'version: 1\ndefault: allow\nrules: []\n', project: 'version: 1\nrules:\n  - id: x\n    decison: deny\n' });
    expect(s.decide('make').decision).toBe('ask');
    expect(s.logs.join('\n')).toContain('the project policy is invalid');
  });
});

describe('hot reload', () => {
  it('picks up an edit; rejects an edit that does not validate and keeps the last good policy', async () => {
    const s = await setup({ user: policy(rule('make-ok', 'allow', 'make')) }, true);
    expect(s.decide('make').decision).toBe('allow');
    writeFileSync(join(s.dir, 'user.yaml'), 'version: 1\nrules:\n  - id: broken\n    decison: deny\n');
    await vi.waitFor(() => expect(s.logs.join('\n')).toContain('the edited policy was rejected; the last good policy stays in force'), { timeout: 10_000, interval: 100 });
    expect(s.logs.join('\n')).toContain('unknown key `decison`');
    expect(s.decide('make').decision).toBe('allow');
    writeFileSync(join(s.dir, 'user.yaml'), policy(rule('make-denied', 'deny', 'make')));
    await vi.waitFor(() => expect(s.decide('make').decision).toBe('deny'), { timeout: 10_000, interval: 100 });
  });

  it('keeps the last good policy when the file is deleted', async () => {
    const s = await setup({ user: policy(rule('make-ok', 'allow', 'make')) }, true);
    const { rmSync } = await import('node:fs');
    rmSync(join(s.dir, 'user.yaml'));
    await vi.waitFor(() => expect(s.logs.join('\n')).toContain('last good policy stays in force'), { timeout: 10_000, interval: 100 });
    expect(s.decide('make').decision).toBe('allow');
  });

  it('picks up a project policy created while running', async () => {
    const s = await setup({ user: policy(rule('make-ok', 'allow', 'make')) }, true);
    expect(s.decide('make deploy').decision).toBe('allow');
    writeFileSync(join(s.workspace, '.acp-broker', 'policy.yaml'), policy(rule('no-deploy', 'deny', 'make deploy')));
    await vi.waitFor(() => expect(s.decide('make deploy').decision).toBe('deny'), { timeout: 10_000, interval: 100 });
  });
});
