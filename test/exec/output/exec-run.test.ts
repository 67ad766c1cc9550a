import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionOutputEvent, ExecEvent, SummaryEvent } from '../../../src/exec/events.js';
import { FIXTURES, spawnBroker, tempDir } from '../../helpers/cli.js';
import { validate } from '../../helpers/json-schema.js';

// Whole runs of the built `acp-broker exec` with the SDK fixture agent, which asks permission for
// each line of the prompt as a shell command: the JSON stream against the schema, the report, the
// GitHub annotations and each exit code from a real situation.
const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'schema', 'exec-events.schema.json'), 'utf8')) as Record<string, unknown>;

function policy(nonInteractive: 'deny' | 'cancel' = 'deny'): string {
  const file = join(tempDir(), 'policy.yaml');
  writeFileSync(file, `version: 1
default: deny
non_interactive: ${nonInteractive}
rules:
  - id: tests
    decision: allow
    reason: running the tests is the job
    match: { kind: execute, command: ["npm test"] }
  - id: network
    decision: ask
    reason: the network needs a person
    match: { kind: execute, command: ["curl"] }
  - id: no-force-push
    decision: deny
    reason: shared history is not rewritten
    match: { command: ["git push --force"] }
`);
  return file;
}

async function exec(options: string[], prompt: string, env: Record<string, string> = {}, agent = [process.execPath, join(FIXTURES, 'sdk-agent.mjs')]) {
  const home = tempDir();
  const run = spawnBroker(['exec', ...options, '--prompt', prompt, '--cwd', tempDir(), '--', ...agent],
    { ACP_BROKER_HOME: home, GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '', NO_COLOR: '', ...env });
  run.child.stdin.end();
  const { code } = await run.exit;
  return { code, stdout: run.stdout().toString(), stderr: run.stderr(), home };
}

const PROMPT = 'npm test\ngit push --force origin main\ncurl https://example.com';

describe('acp-broker exec output, whole runs', () => {
  it('GITHUB_ACTIONS=true: workflow commands are paused before the agent starts, so even its first stderr line cannot act on the job', async () => {
    const run = await exec(['--policy', policy()], 'npm test', { GITHUB_ACTIONS: 'true' },
      [process.execPath, join(FIXTURES, 'stderr-first-agent.mjs')]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n');
    const paused = lines.findIndex((l) => /^::stop-commands::[0-9a-f]{32}$/.test(l));
    const injected = lines.flatMap((l, i) => (l === '::warning::written by the agent at its start' ? [i] : []));
    expect(paused).toBeGreaterThanOrEqual(0);
    expect(injected.length).toBeGreaterThan(10);
    expect(Math.min(...injected)).toBeGreaterThan(paused);
    const token = lines[paused]!.slice('::stop-commands::'.length);
    expect(lines.indexOf(`::${token}::`)).toBeGreaterThan(Math.max(...injected));
  });

  it('--output-format json: every stdout line is an event the schema accepts, start first, summary last, the counts right', async () => {
    const run = await exec(['--policy', policy(), '--output-format', 'json'], PROMPT);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.pop()).toBe('');
    const events = lines.map((line) => JSON.parse(line) as ExecEvent);
    for (const event of events) expect(validate(schema, event, { strict: true }), JSON.stringify(event)).toEqual([]);
    expect(events[0]!.type).toBe('start');
    // Decisions come from the broker's audit, updates through the SDK client: their relative order
    // may vary, each tool call's own order may not.
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['start', 'session']);
    expect(types.slice(-2)).toEqual(['stop', 'summary']);
    expect([...types].sort()).toEqual(['decision', 'decision', 'decision', 'session', 'start', 'stop', 'summary', 'text',
      'tool_call', 'tool_call', 'tool_call', 'tool_call_update', 'tool_call_update', 'tool_call_update']);
    for (const id of new Set(events.flatMap((e) => ('toolCallId' in e && e.type !== 'decision' ? [e.toolCallId] : [])))) {
      const own = events.filter((e) => e.type !== 'decision' && 'toolCallId' in e && e.toolCallId === id).map((e) => e.type);
      expect(own).toEqual(['tool_call', 'tool_call_update']);
    }
    const decisions = events.filter((e): e is DecisionOutputEvent => e.type === 'decision');
    expect(decisions.map((d) => [d.command, d.decision, d.source.type, d.rule])).toEqual([
      ['npm test', 'allow', 'rule', 'tests'],
      ['git push --force origin main', 'deny', 'rule', 'no-force-push'],
      ['curl https://example.com', 'deny', 'fallback', 'network'],
    ]);
    const summary = events.at(-1) as SummaryEvent;
    expect(summary).toMatchObject({ exitCode: 0, stopReason: 'end_turn', counts: { toolCalls: 3, allowed: 1, denied: 1, fellBack: 1, answeredByHuman: 0 } });
    expect(run.stderr).not.toContain('ALLOW'); // no decision log in json mode
  });

  it('--report, GITHUB_STEP_SUMMARY and GITHUB_ACTIONS=true: the Markdown in both files, a warning per refusal on stderr, stdout only the reply', async () => {
    const dir = tempDir();
    const report = join(dir, 'report.md');
    const stepSummary = join(dir, 'step-summary.md');
    writeFileSync(stepSummary, '# Build\n');
    const run = await exec(['--policy', policy(), '--report', report], PROMPT, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('npm test => allow-once\ngit push --force origin main => reject\ncurl https://example.com => reject\n');
    const markdown = readFileSync(report, 'utf8');
    expect(markdown).toContain('## acp-broker exec: success\n');
    expect(markdown).toContain('| Tool calls | 3 |\n| Allowed | 1 |\n| Denied | 1 |\n| Fell back (non-interactive) | 1 |\n');
    expect(markdown).toContain('| 1 | DENY | git push --force origin main | rule no-force-push | rule no-force-push denies git push --force origin main: shared history is not rewritten |');
    expect(markdown).toMatch(/\| 2 \| DENY \| curl https:\/\/example\.com \| rule network asked, non-interactive fallback \(deny\) \| [^|]+ \|/);
    expect(markdown).toContain('| 1 | npm test | execute | completed |\n| 2 | git push --force origin main | execute | failed |\n');
    expect(readFileSync(stepSummary, 'utf8')).toBe(`# Build\n${markdown}`);
    const commands = run.stderr.split('\n').filter((l) => l.startsWith('::'));
    expect(commands).toHaveLength(4);
    expect(commands[0]).toMatch(/^::stop-commands::[0-9a-f]{32}$/);
    expect(commands[1]).toBe(`::${commands[0]!.slice('::stop-commands::'.length)}::`);
    expect(commands[2]).toMatch(/^::warning title=acp-broker%3A denied::DENY git push --force origin main \[rule no-force-push\]: /);
    expect(commands[3]).toMatch(/^::warning title=acp-broker%3A fell back::DENY curl https:\/\/example\.com \[rule network asked, non-interactive fallback \(deny\)\]: /);
  });

  it('exit 4: --fail-on-deny and a request was refused (0 for the same run without it)', async () => {
    const run = await exec(['--policy', policy(), '--fail-on-deny', '--output-format', 'json'], 'npm test\ngit push --force origin main');
    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout.trimEnd().split('\n').at(-1)!)).toMatchObject({ type: 'summary', exitCode: 4, stopReason: 'end_turn' });
    const allowedOnly = await exec(['--policy', policy(), '--fail-on-deny'], 'npm test');
    expect(allowedOnly.code).toBe(0);
  });

  it('exit 1: the turn failed (the fallback cancels, the agent stops with `cancelled`) — stronger than --fail-on-deny', async () => {
    const run = await exec(['--policy', policy('cancel'), '--fail-on-deny'], 'curl https://example.com\nnpm test');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('acp-broker: turn ended: cancelled\n');
  });

  it('exit 127: the agent cannot start; the JSON stream still ends with the summary', async () => {
    const run = await exec(['--policy', policy(), '--output-format', 'json'], 'npm test', {}, [join(tempDir(), 'no-such-agent')]);
    expect(run.code).toBe(127);
    const events = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as ExecEvent);
    expect(events.map((e) => e.type)).toEqual(['start', 'error', 'summary']);
    expect(events[1]).toMatchObject({ code: 'agent_start_failed' });
    expect(events[2]).toMatchObject({ exitCode: 127, stopReason: null });
  });

  it('exit 2: a bad --output-format (with exec\'s usage) or an unwritable --report (one line), nothing started', async () => {
    const format = await exec(['--policy', policy(), '--output-format', 'yaml'], 'npm test');
    expect(format.code).toBe(2);
    expect(format.stderr.split('\n')[0]).toBe("acp-broker: --output-format must be text or json, not 'yaml'");
    expect(format.stderr).toContain('usage: acp-broker exec ');
    expect(existsSync(join(format.home, 'audit.jsonl'))).toBe(false);
    const report = await exec(['--policy', policy(), '--report', join(tempDir(), 'missing', 'r.md')], 'npm test');
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/^acp-broker: cannot write the report .*missing\/r\.md: .*\n$/);
    expect(report.stdout).toBe('');
  });
});
