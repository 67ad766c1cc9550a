import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../../src/policy/load.js';
import { CLI, ROOT, tempDir } from '../helpers/cli.js';

// `policy show`: the layers and files in force for a user and a directory, loaded through the
// pipeline a run uses; a broken file is shown as a problem, never a crash.

const SYSTEM = '/etc/acp-broker/policy.yaml';
const BUNDLED = join(ROOT, 'policies', 'default.yaml');
const bundled = loadPolicyText(readFileSync(BUNDLED, 'utf8'), BUNDLED, 'user').policy!;

function show(home: string, project: string, extra: string[] = []) {
  const r = spawnSync(process.execPath, [CLI, 'policy', 'show', '--cwd', project, ...extra], { encoding: 'utf8', env: { ...process.env, ACP_BROKER_HOME: home } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const places = (home: string) => `grants:     ${home}/grants.json\naudit log:  ${home}/audit.jsonl\ntrust:      ${home}/trust.json\n`;

describe.skipIf(existsSync(SYSTEM))('acp-broker policy show (no system managed policy on this machine)', () => {
  it('a new user: the bundled default in force, nothing else', () => {
    const home = tempDir('acp-broker-show-');
    const project = tempDir('acp-broker-show-project-');
    expect(show(home, project)).toEqual({ code: 0, stderr: '', stdout: `workspace: ${project}
layers (for every part of a call the strictest answer wins):
  managed  ${SYSTEM}: not present
  user     ${home}/policy.yaml: not present (the bundled default is used)
  bundled  ${BUNDLED}: ${bundled.rules.length} rules
  project  ${project}/.acp-broker/policy.yaml: not present
effective:
  default:          ask
  non_interactive:  deny
  enforcement:      ${bundled.rules.length} enforced, 0 warn, 0 shadow
  modes denied:     ${bundled.modes!.deny.join(', ')}
  modes preferred:  (none)
  unprompted:       warn
${places(home)}` });
  });

  it('a user policy, a managed layer and a project policy through its trust states', () => {
    const home = tempDir('acp-broker-show-');
    const project = tempDir('acp-broker-show-project-');
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\nnon_interactive: cancel\nrules:\n  - id: tests\n    decision: allow\n    enforcement: shadow\n    match: { command: ["npm test"] }\n');
    const managed = join(home, 'managed.yaml');
    writeFileSync(managed, 'version: 1\nmodes:\n  deny: [yolo]\n  prefer: [default]\nunprompted: stop\nrules:\n  - id: no-curl\n    decision: deny\n    enforcement: warn\n    match: { command: ["curl"] }\n');
    mkdirSync(join(project, '.acp-broker'));
    const projectFile = join(project, '.acp-broker', 'policy.yaml');
    writeFileSync(projectFile, 'version: 1\ndefault: deny\nrules:\n  - id: make\n    decision: allow\n    match: { command: ["make"] }\n  - id: no-wget\n    decision: deny\n    match: { command: ["wget"] }\n');
    const head = (projectLine: string, enforced: number) => `workspace: ${project}
layers (for every part of a call the strictest answer wins):
  managed  ${managed}: 1 rule
  user     ${home}/policy.yaml: 1 rule
  bundled  ${BUNDLED}: not loaded as a layer (a policy with \`extends: [default]\` builds on it)
  project  ${projectFile}: ${projectLine}
effective:
  default:          deny
  non_interactive:  deny
  enforcement:      ${enforced} enforced, 1 warn, 1 shadow
  modes denied:     yolo
  modes preferred:  default
  unprompted:       stop
${places(home)}`;
    const args = ['--managed-policy', managed];
    expect(show(home, project, args)).toEqual({ code: 0, stderr: '', stdout: head(`2 rules, not trusted: its allow rules (make) are ignored until \`acp-broker trust ${project}\``, 1) });
    expect(spawnSync(process.execPath, [CLI, 'trust', project], { env: { ...process.env, ACP_BROKER_HOME: home } }).status).toBe(0);
    expect(show(home, project, args).stdout).toBe(head('2 rules, trusted', 2));
    writeFileSync(projectFile, `${readFileSync(projectFile, 'utf8')}# edited\n`);
    expect(show(home, project, args).stdout).toBe(head(`2 rules, changed since you trusted it: its allow rules (make) are ignored until \`acp-broker trust ${project}\``, 1));
  });

  it('a broken user policy: its problems at their positions, no effective policy, exit 1', () => {
    const home = tempDir('acp-broker-show-');
    const project = tempDir('acp-broker-show-project-');
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\nrules:\n  - id: x\n    decison: allow\n    match: { command: ["ls"] }\n');
    const r = show(home, project);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`  user     ${home}/policy.yaml: does not load
      ${home}/policy.yaml:4:5: error: rule #1: unknown key \`decison\`
        hint: did you mean \`decision\`?
`);
    expect(r.stdout).toContain('effective: none — the policy does not load, so `acp-broker run` would not start an agent\n');
  });

  it('an unreadable --policy and a broken project policy: shown, exit 1; the project one fails closed', () => {
    const home = tempDir('acp-broker-show-');
    const project = tempDir('acp-broker-show-project-');
    mkdirSync(join(project, '.acp-broker'));
    writeFileSync(join(project, '.acp-broker', 'policy.yaml'), 'version: 1\nrules: {\n');
    const r = show(home, project, ['--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.layers[3]).toMatchObject({ layer: 'project', state: 'in-force', rules: null, problems: [{ severity: 'error', location: { file: join(project, '.acp-broker', 'policy.yaml') } }] });
    // A run applies a fail-closed layer for it: undecided requests ask, and it never loosens.
    expect(report.effective).toMatchObject({ default: 'ask', nonInteractive: 'deny' });
    const missing = show(home, project, ['--policy', join(home, 'nope.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`  user     ${home}/nope.yaml: does not load\n      ${home}/nope.yaml:1:1: error: cannot read policy file: no such file or directory\n`);
  });

  it('usage: `policy` needs `show`', () => {
    const r = spawnSync(process.execPath, [CLI, 'policy'], { encoding: 'utf8', env: { ...process.env, ACP_BROKER_HOME: tempDir() } });
    expect([r.status, r.stdout, r.stderr.split('\n')[0]]).toEqual([2, '', 'acp-broker: policy needs an action: show']);
  });
});
