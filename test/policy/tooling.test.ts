import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, tempDir } from '../helpers/cli.js';

function cli(args: string[], input?: string) {
  const home = tempDir();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, input, encoding: 'utf8', env: { ...process.env, ACP_BROKER_HOME: home } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function policyFile(text: string): string {
  const file = join(tempDir(), 'policy.yaml');
  writeFileSync(file, text);
  return file;
}

const BROKEN = `version: 1
defualt: ask
rules:
  - id: reads
    decision: alow
    enforcment: warn
    match: { kind: [raed], paths: ["\${workspace}/**"] }
  - id: reads
    decision: allow
    match: { kind: read, paths: ["\${workspace}/src/**"] }
`;

const SUSPICIOUS = `version: 1
rules:
  - id: impossible
    decision: deny
    match: { paths: ["/etc/**"], command: ["rm"] }
  - id: wide
    decision: ask
    match: { kind: execute }
  - id: narrow
    decision: ask
    match: { kind: execute, command: ["make"] }
`;

describe('acp-broker validate', () => {
  it('reports every problem at once as file:line:column: severity: message, with did-you-mean; exit 1', () => {
    const file = policyFile(BROKEN);
    const r = cli(['validate', file]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith(file));
    expect(lines).toEqual([
      `${file}:2:1: error: policy: unknown key \`defualt\``,
      `${file}:5:15: error: rule \`reads\` \`decision\`: \`alow\` is not one of allow, ask, deny`,
      `${file}:6:5: error: rule #1: unknown key \`enforcment\``,
      `${file}:7:21: error: rule \`reads\` \`kind\`: \`raed\` is not an ACP tool kind`,
      `${file}:8:9: warning: duplicate rule id \`reads\` (first at line 4)`,
    ]);
    expect(r.stdout).toContain('hint: did you mean `default`?');
    expect(r.stdout).toContain('hint: did you mean `allow`?');
    expect(r.stdout).toContain('hint: did you mean `enforcement`?');
    expect(r.stdout).toContain('hint: did you mean `read`?');
    expect(r.stderr).toContain('4 error(s), 1 warning(s)');
  });

  it('warns about rules that can never match and rules shadowed by a broader one; warnings alone exit 0', () => {
    const file = policyFile(SUSPICIOUS);
    const r = cli(['validate', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith(file))).toEqual([
      `${file}:3:5: warning: rule \`impossible\` can never match: paths/access (path items) and command (command items) never describe the same item`,
      `${file}:9:5: warning: rule \`narrow\` is shadowed by the earlier, broader rule \`wide\` (line 6) with the same decision`,
    ]);
  });

  it('passes a good file (warnings alone do not fail) and the bundled policies', () => {
    const r = cli(['validate', 'policies/default.yaml', 'policies/ci-strict.yaml', 'policies/enterprise-baseline.yaml', 'examples/layers/user-policy.yaml', 'examples/layers/project-x/.acp-broker/policy.yaml']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('0 error(s), 0 warning(s)');
    expect(r.code).toBe(0);
    const warned = cli(['validate', policyFile('version: 1\nrules:\n  - id: a\n    decision: ask\n    match: { kind: execute }\n  - id: b\n    decision: ask\n    match: { kind: execute, command: [make] }\n')]);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain('warning: rule `b` is shadowed');
  });

  it('names an unreadable file', () => {
    const r = cli(['validate', '/nonexistent/policy.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('/nonexistent/policy.yaml:1:1: error: cannot read policy file: no such file or directory');
  });
});

describe('acp-broker test', () => {
  it('runs every example, reports failures with rule id and locations, and rules without examples; exit 1', () => {
    const file = policyFile(`version: 1
rules:
  - id: env
    decision: deny
    match: { paths: ["**/.env"] }
    examples:
      match:
        - { kind: read, paths: ["/w/.env"] }
        - { kind: read, paths: ["/w/.envrc"] }
      not_match:
        - { kind: read, paths: ["/w/env.ts"] }
  - id: untested
    decision: allow
    match: { command: ["npm test"] }
`);
    const r = cli(['test', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAIL ${file}:9:11: rule \`env\` (${file}:3:5): {"kind":"read","paths":["/w/.envrc"]} should match but does not`);
    expect(r.stdout).toContain(`note ${file}:12:5: rule \`untested\` has no examples`);
    expect(r.stdout).toContain('2 passed, 1 failed');
  });

  it('passes the bundled policies', () => {
    const r = cli(['test', 'policies/default.yaml', 'policies/ci-strict.yaml', 'policies/enterprise-baseline.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+ passed, 0 failed/);
    expect(r.stdout).not.toContain('has no examples');
  });
});

describe('acp-broker check', () => {
  const request = { jsonrpc: '2.0', id: 3, method: 'session/request_permission', params: {
    sessionId: 's', toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'git status && git push -f' } },
    options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }, { optionId: 'no', name: 'No', kind: 'reject_once' }] } };

  it('explains: decision, each item with its rules, layers and locations, and the option the agent gets', () => {
    const r = cli(['check', '--managed-policy', 'policies/enterprise-baseline.yaml', '--policy', 'policies/default.yaml', '--cwd', '/w', '-'], JSON.stringify(request));
    expect(r.code).toBe(1); // deny
    expect(r.stdout).toContain('decision: DENY');
    expect(r.stdout).toMatch(/allow +git status\n +rule read-only-commands \(allow\) \[user\] policies\/default\.yaml:\d+:5/);
    expect(r.stdout).toMatch(/deny +git push -f\n +rule history-rewrites \(deny\) \[managed\] policies\/enterprise-baseline\.yaml:\d+:5\n +rule destructive \(deny\) \[user\]/);
    expect(r.stdout).toContain('agent receives: selected no (reject_once) (interactive); selected no (reject_once) (non-interactive)');
  });

  it('--json prints one object with the same content; params alone work too', () => {
    const r = cli(['check', '--json', '--policy', 'policies/default.yaml', '--cwd', '/w', '-'], JSON.stringify(request.params));
    const report = JSON.parse(r.stdout) as { decision: string; items: { item: string; decision: string; matches: { ruleId: string; layer: string; line: number }[] }[]; answer: { nonInteractive: string } };
    expect(report.decision).toBe('deny');
    expect(report.items.map((i) => [i.item, i.decision, i.matches.map((m) => m.ruleId)])).toEqual([['git status', 'allow', ['read-only-commands']], ['git push -f', 'deny', ['destructive']]]);
    expect(report.answer.nonInteractive).toBe('selected no (reject_once)');
  });

  it('shows warn and shadow rules that fired', () => {
    const file = policyFile(`version: 1
rules:
  - id: new-rule
    decision: deny
    enforcement: shadow
    match: { command: ["git status"] }
  - id: rolling-out
    decision: deny
    enforcement: warn
    match: { command: ["git push"] }
  - id: ok
    decision: allow
    match: { command: ["git status", "git push"] }
`);
    const r = cli(['check', '--json', '--policy', file, '--cwd', '/w', '-'], JSON.stringify(request.params));
    const report = JSON.parse(r.stdout) as { decision: string; wouldHave: { ruleId: string; decision: string; enforcement: string }[] };
    expect(report.decision).toBe('ask'); // warn: the deny becomes an ask; shadow: no effect
    expect(report.wouldHave.map((w) => [w.ruleId, w.decision, w.enforcement])).toEqual([['new-rule', 'deny', 'shadow'], ['rolling-out', 'deny', 'warn']]);
  });

  it('bad input: exit 2 with a message', () => {
    const r = cli(['check', '-'], 'not json');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not JSON');
  });
});
