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
  grant_scope:      project
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
  bundled  ${BUNDLED}: not in force: the user policy replaces it (\`extends: [default]\` builds on it instead)
  project  ${projectFile}: ${projectLine}
effective:
  default:          deny
  non_interactive:  deny
  grant_scope:      project
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

  it('a user policy that extends a team file that extends the bundled default: the chain, its counts, the combined values', () => {
    const home = tempDir('acp-broker-show-');
    const project = tempDir('acp-broker-show-project-');
    const team = join(home, 'team.yaml');
    writeFileSync(team, 'version: 1\nextends: [default]\nrules:\n  - id: no-deploy\n    decision: deny\n    match: { command: ["make deploy"] }\n  - id: lint\n    decision: allow\n    enforcement: warn\n    match: { command: ["npm run lint"] }\n');
    // Loosest settings of its own: the bundled default's `default: ask` and `non_interactive: deny` still hold;
    // `grant_scope: global` holds, since no file of the chain writes `project`.
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\nextends: [./team.yaml]\ndefault: allow\nnon_interactive: cancel\ngrant_scope: global\nrules:\n  - id: tests\n    decision: allow\n    match: { command: ["npm test"] }\n');
    const expected = `workspace: ${project}
layers (for every part of a call the strictest answer wins):
  managed  ${SYSTEM}: not present
  user     ${home}/policy.yaml: 1 rule
           extends default: ${bundled.rules.length} rules (${BUNDLED}), through ${team}
           extends ${team}: 2 rules
  bundled  ${BUNDLED}: ${bundled.rules.length} rules, in force through the \`extends\` of ${home}/policy.yaml
  project  ${project}/.acp-broker/policy.yaml: not present
effective:
  default:          ask
  non_interactive:  deny
  grant_scope:      global
  enforcement:      ${bundled.rules.length + 2} enforced, 1 warn, 0 shadow
  modes denied:     ${bundled.modes!.deny.join(', ')}
  modes preferred:  (none)
  unprompted:       warn
${places(home)}`;
    expect(show(home, project)).toEqual({ code: 0, stderr: '', stdout: expected });
    const report = JSON.parse(show(home, project, ['--json']).stdout);
    expect(report.layers.slice(1, 3)).toEqual([
      { layer: 'user', file: join(home, 'policy.yaml'), state: 'in-force', rules: 1, problems: [],
        extends: [{ name: 'default', file: BUNDLED, rules: bundled.rules.length, via: team }, { name: team, file: team, rules: 2 }] },
      { layer: 'bundled', file: BUNDLED, state: 'extended', rules: bundled.rules.length, extends: [], problems: [], extendedBy: [join(home, 'policy.yaml')] },
    ]);
    expect(report.effective).toMatchObject({ default: 'ask', nonInteractive: 'deny', grantScope: 'global' });
  });

  it('a project policy extending a bundled one: its rules counted, every allow rule of its chain waits for trust', () => {
    const home = tempDir('acp-broker-show-');
    const project = tempDir('acp-broker-show-project-');
    mkdirSync(join(project, '.acp-broker'));
    const projectFile = join(project, '.acp-broker', 'policy.yaml');
    writeFileSync(projectFile, 'version: 1\nextends: [ci-strict]\nrules:\n  - id: make\n    decision: allow\n    match: { command: ["make"] }\n');
    const ciStrict = join(ROOT, 'policies', 'ci-strict.yaml');
    const strict = loadPolicyText(readFileSync(ciStrict, 'utf8'), ciStrict, 'user').policy!;
    const allows = [...strict.rules.filter((r) => r.decision === 'allow').map((r) => `ci-strict:${r.id}`), 'make'];
    const r = show(home, project);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  bundled  ${BUNDLED}: ${bundled.rules.length} rules
  project  ${projectFile}: 1 rule, not trusted: its allow rules (${allows.join(', ')}) are ignored until \`acp-broker trust ${project}\`
           extends ci-strict: ${strict.rules.length} rules (${ciStrict})
effective:
  default:          deny
`);
  });

  it('an extended file that cannot be read: the problem under the file that names it, no effective policy, exit 1', () => {
    const home = tempDir('acp-broker-show-');
    const project = tempDir('acp-broker-show-project-');
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\nextends: [default, ./gone.yaml]\nrules: []\n');
    const r = show(home, project);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`  user     ${home}/policy.yaml: does not load
           extends default: ${bundled.rules.length} rules (${BUNDLED})
      ${home}/policy.yaml:2:20: error: cannot read \`./gone.yaml\` (${home}/gone.yaml), which this policy extends: no such file or directory
        hint: fix the path (relative to this file) or remove the entry; a policy is never used without what it extends
  bundled  ${BUNDLED}: not in force: ${home}/policy.yaml, which extends it, does not load
`);
    expect(r.stdout).toContain('effective: none');
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
