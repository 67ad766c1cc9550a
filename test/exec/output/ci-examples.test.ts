import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, ROOT } from '../../helpers/cli.js';

// examples/ci: the promises the README makes about them, read from the files themselves.
const CI = join(ROOT, 'examples', 'ci');
const read = (file: string) => readFileSync(join(CI, file), 'utf8');

interface Step { readonly uses?: string; readonly run?: string; readonly if?: string; readonly with?: Record<string, unknown>; readonly env?: Record<string, string> }
interface Workflow {
  readonly permissions: unknown;
  readonly jobs: Record<string, { readonly 'timeout-minutes'?: number; readonly permissions?: unknown; readonly steps: Step[] }>;
}

describe('examples/ci/github-workflow.yml', () => {
  const text = read('github-workflow.yml');
  const workflow = parse(text) as Workflow;
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const execStep = steps.find((s) => s.run?.includes('acp-broker exec'))!;

  it('pins every action to a full commit SHA with its version as a comment (also in the commented alternative)', () => {
    const uses = text.split('\n').filter((line) => /^\s*#?\s*-?\s*uses:/.test(line));
    expect(uses.length).toBe(4);
    for (const line of uses) expect(line).toMatch(/uses: actions\/[a-z-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    expect(steps.filter((s) => s.uses).length).toBe(3);
  });

  it('least permissions: the workflow reads contents, no job asks for more', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    for (const job of Object.values(workflow.jobs)) expect(job.permissions).toBeUndefined();
  });

  it('checkout keeps no credentials; every job has a timeout', () => {
    const checkouts = steps.filter((s) => s.uses?.startsWith('actions/checkout@'));
    expect(checkouts.length).toBeGreaterThan(0);
    for (const step of checkouts) expect(step.with?.['persist-credentials']).toBe(false);
    for (const job of Object.values(workflow.jobs)) expect(job['timeout-minutes']).toBeGreaterThan(0);
  });

  it('runs exec with the repository\'s policy, an audit log, a report and --fail-on-deny; the task never pasted into the script', () => {
    expect(execStep.run).toContain('--policy ci/acp-policy.yaml');
    expect(execStep.run).toContain('--audit "$RUNNER_TEMP/agent-audit.jsonl"');
    expect(execStep.run).toContain('--report "$RUNNER_TEMP/agent-report.md"');
    expect(execStep.run).toContain('--fail-on-deny');
    expect(execStep.run).not.toContain('${{');
  });

  it('uploads the audit log and the report even when the job fails', () => {
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    expect(String(upload.with?.['path'])).toContain('${{ runner.temp }}/agent-audit.jsonl');
    expect(String(upload.with?.['path'])).toContain('${{ runner.temp }}/agent-report.md');
    // The patch step before it must not be skipped on failure either.
    for (const step of steps.slice(steps.indexOf(execStep) + 1)) expect(step.if).toBe('always()');
  });

  it('installs acp-broker from a tarball in the repository (it is not on the npm registry), as the comments describe', () => {
    expect(steps.some((s) => s.run?.startsWith('npm install -g ./ci/acp-broker-0.1.0.tgz '))).toBe(true);
    const name = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
    expect(`${name.name}-${name.version}.tgz`).toBe('acp-broker-0.1.0.tgz'); // what `npm pack` writes
    expect(text).toContain('npm ci && npm pack');
  });
});

describe('examples/ci/gitlab-ci.yml', () => {
  const config = parse(read('gitlab-ci.yml')) as Record<string, { timeout?: string; script: string[]; after_script?: string[]; artifacts: { when: string; paths: string[] } }>;
  const job = config['agent-task']!;

  it('runs exec as the GitHub job does, with a timeout', () => {
    expect(job.timeout).toBe('30m');
    const exec = job.script.find((line) => line.startsWith('acp-broker exec'))!;
    expect(exec).toContain('--policy ci/acp-policy.yaml');
    expect(exec).toContain('--audit agent-audit.jsonl');
    expect(exec).toContain('--report agent-report.md');
    expect(exec).toContain('--fail-on-deny');
    expect(job.script[0]).toMatch(/^npm install -g \.\/ci\/acp-broker-0\.1\.0\.tgz /);
  });

  it('keeps the audit log and the report as artifacts, also when the job fails', () => {
    expect(job.artifacts.when).toBe('always');
    expect(job.artifacts.paths).toEqual(expect.arrayContaining(['agent-audit.jsonl', 'agent-report.md']));
  });
});

describe('examples/ci/acp-policy.yaml', () => {
  const policy = join(CI, 'acp-policy.yaml');
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

  it('is valid and every rule\'s examples pass (acp-broker validate, acp-broker test)', () => {
    const validate = cli('validate', policy);
    expect(validate.status, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout + validate.stderr).toContain('0 error(s), 0 warning(s)');
    const test = cli('test', policy);
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout + test.stderr).toMatch(/\b\d+ passed, 0 failed/);
  });

  it('is self-contained: no layer it depends on, and CI asks fall back to deny', () => {
    const parsed = parse(readFileSync(policy, 'utf8')) as { default: string; non_interactive: string; extends?: unknown };
    expect(parsed.extends).toBeUndefined();
    expect(parsed.default).toBe('ask');
    expect(parsed.non_interactive).toBe('deny');
  });
});
