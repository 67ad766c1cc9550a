import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { starterPolicy } from '../../src/cli/starter-policy.js';
import { CLI, ROOT, tempDir } from '../helpers/cli.js';

function cli(args: string[], home: string, cwd?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd, env: { ...process.env, ACP_BROKER_HOME: home } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The starter with its commented rules switched on. */
function uncommented(text: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf('# rules:');
  return [...lines.slice(0, start), ...lines.slice(start).map((l) => l.replace(/^# ?/, ''))].join('\n');
}

describe('acp-broker init', () => {
  it('writes the starter user policy and says what to do next', () => {
    const home = tempDir('acp-broker-init-');
    const file = join(home, 'policy.yaml');
    expect(cli(['init'], home)).toEqual({
      code: 0, stderr: '',
      stdout: `wrote ${file} (user policy; extends the bundled default)\nNext: uncomment the rules you want, then try one: acp-broker check -- npm test\n`,
    });
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(starterPolicy('user', home));
    // Outside the package, the schema line names the installed schema by its absolute path.
    const schema = join(ROOT, 'schema', 'policy.schema.json');
    expect(existsSync(schema)).toBe(true);
    expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${schema}`);
    expect(text).toMatch(/\nversion: 1\nextends: \[default\]\n/);
  });

  it('never overwrites without --force; --force does', () => {
    const home = tempDir('acp-broker-init-');
    const file = join(home, 'policy.yaml');
    writeFileSync(file, 'mine\n');
    expect(cli(['init'], home)).toEqual({ code: 1, stdout: '', stderr: `acp-broker: ${file} already exists; nothing was written (--force replaces it)\n` });
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
    expect(cli(['init', '--force'], home).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(starterPolicy('user', home));
  });

  it('--project DIR writes DIR/.acp-broker/policy.yaml and names `acp-broker trust DIR`; --project alone means here', () => {
    const home = tempDir('acp-broker-init-');
    const project = tempDir('acp-broker-init-project-');
    const file = join(project, '.acp-broker', 'policy.yaml');
    expect(cli(['init', '--project', project], home)).toEqual({
      code: 0, stderr: '',
      stdout: `wrote ${file} (project policy; extends the bundled default)\nNext: review it, then trust it so its allow rules count: acp-broker trust ${project}\nTry a command against it: acp-broker check --cwd ${project} -- npm test\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe(starterPolicy('project', join(project, '.acp-broker')));
    expect(existsSync(join(home, 'policy.yaml'))).toBe(false);
    const here = tempDir('acp-broker-init-here-');
    expect(cli(['init', '--project', '--force'], home, here).code).toBe(0);
    expect(readFileSync(join(here, '.acp-broker', 'policy.yaml'), 'utf8')).toBe(starterPolicy('project', join(here, '.acp-broker')));
  });

  it('mistakes: a --project that is no directory, a stray argument (exit 2, nothing written)', () => {
    const home = tempDir('acp-broker-init-');
    const missing = join(home, 'no-such-dir');
    const r = cli(['init', '--project', missing], home);
    expect([r.code, r.stderr]).toEqual([2, `acp-broker: --project ${missing}: not an existing directory\n`]);
    expect(existsSync(missing)).toBe(false);
    const stray = cli(['init', 'here'], home);
    expect(stray.code).toBe(2);
    expect(stray.stderr.split('\n')[0]).toBe('acp-broker: init takes no argument (got `here`); a project directory goes after --project');
    expect(existsSync(join(home, 'policy.yaml'))).toBe(false);
  });

  it('the commented rules are valid and their examples hold once uncommented (checked without `extends`)', () => {
    const dir = tempDir('acp-broker-init-rules-');
    const file = join(dir, 'rules.yaml');
    writeFileSync(file, uncommented(starterPolicy('user', dir)).replace('extends: [default]\n', ''));
    expect(cli(['validate', file], dir)).toMatchObject({ code: 0, stdout: '' });
    expect(cli(['test', file], dir)).toMatchObject({ code: 0, stdout: '5 passed, 0 failed\n' });
  });

  it('the starter, as written and uncommented, loads and validates; the extended default still denies through it', () => {
    const home = tempDir('acp-broker-init-');
    expect(cli(['init'], home).code).toBe(0);
    const valid = cli(['validate'], home);
    expect([valid.code, valid.stdout]).toEqual([0, '']);
    expect(valid.stderr).toMatch(new RegExp(`^${join(home, 'policy.yaml')}: ok \\(0 rules \\+ \\d+ from the policies it extends\\)\n0 error\\(s\\), 0 warning\\(s\\)\n$`));
    const force = cli(['check', '--', 'git', 'push', '--force', 'origin', 'main'], home);
    expect(force.code).toBe(1);
    expect(force.stdout).toMatch(/^decision: DENY\nreason: {3}rule default:destructive denies git push --force origin main:/);
    writeFileSync(join(home, 'policy.yaml'), uncommented(starterPolicy('user', home)));
    expect(cli(['validate'], home)).toMatchObject({ code: 0, stdout: '' });
    expect(cli(['check', '--', 'pytest', '-q'], home).code).toBe(0);
    expect(cli(['check', '--', 'git', 'push', '--force', 'origin', 'main'], home).code).toBe(1);
  });
});
