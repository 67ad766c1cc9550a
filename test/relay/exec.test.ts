import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, spawnBroker, tempDir } from '../helpers/cli.js';

// `acp-broker exec`, the headless client for CI: its exit code is what a pipeline trusts.
async function exec(agent: string[], policy = join(ROOT, 'policies', 'ci-strict.yaml')) {
  const home = tempDir();
  const run = spawnBroker(['exec', '--policy', policy, '--prompt', 'fix it', '--cwd', tempDir(), '--', ...agent], { ACP_BROKER_HOME: home });
  run.child.stdin.end();
  const { code } = await run.exit;
  return { code, stdout: run.stdout().toString(), stderr: run.stderr(), audit: () => readFileSync(join(home, 'audit.jsonl'), 'utf8') };
}

describe('acp-broker exec', () => {
  it('runs the demo agent to the end of its turn: exit 0, its text on stdout, every decision audited', async () => {
    const run = await exec([process.execPath, join(ROOT, 'examples', 'demo', 'scripted-agent.mjs')]);
    expect(run.stderr).toContain('acp-broker: turn ended: end_turn');
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(0);
    const events = run.audit().trim().split('\n').map((l) => JSON.parse(l) as { event: string; decision?: string });
    expect(events.filter((e) => e.event === 'decision').length).toBeGreaterThanOrEqual(5);
    expect(events.some((e) => e.decision === 'deny')).toBe(true);
  });

  it('an agent that cannot start fails the run, it does not pass silently (127 when the command does not exist, as in run)', async () => {
    const missingScript = await exec([process.execPath, join(tempDir(), 'no-such-agent.mjs')]);
    expect(missingScript.code).toBe(1);
    expect(missingScript.stderr).toContain('the agent closed the connection (agent exit code 1)');
    const missingBinary = await exec([join(tempDir(), 'no-such-binary')]);
    expect(missingBinary.code).toBe(127);
    expect(missingBinary.stderr).toContain('cannot start the agent');
  });

  it('an agent that dies mid-turn fails the run', async () => {
    const agent = `let n = 0; process.stdin.on('data', (c) => { for (const l of String(c).split('\\n').filter(Boolean)) {
      const m = JSON.parse(l);
      if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1 } }) + '\\n');
      if (m.method === 'session/new') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { sessionId: 's' } }) + '\\n');
      if (m.method === 'session/prompt') process.exit(3);
    } });`;
    const run = await exec([process.execPath, '-e', agent]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(agent exit code 3)');
  });
});
