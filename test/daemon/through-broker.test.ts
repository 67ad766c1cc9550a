import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, spawnBroker, tempDir } from '../helpers/cli.js';
import { cli, listApprovals, poll, startDaemon, waitFor, type RunningDaemon } from './helpers.js';

// The approvals daemon behind a real broker (`run` and `exec`) in front of an ACP agent written
// with the reference SDK, which runs each command it is allowed: answers given in a terminal
// (`acp-broker approvals allow`) reach the agent, and the effect is on disk.

const AGENT = [process.execPath, join(FIXTURES, 'sdk-agent.mjs')];
const POLICY = 'version: 1\ndefault: ask\nnon_interactive: deny\nrules: []\n';

let daemon: RunningDaemon | undefined;
afterEach(async () => { await daemon?.stop(); daemon = undefined; });

/** The daemon's open approvals once there are `count` of them. */
function openApprovals(home: string, count = 1) {
  return poll(`${count} open approval(s) in the daemon`, async () => {
    const listed = await listApprovals(home);
    return listed.length >= count ? listed : undefined;
  });
}

function auditOf(path: string): { event: string; decision?: string; outcome?: string; source?: { type: string } }[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

function setup() {
  const home = tempDir('acp-broker-approvals-');
  const workspace = tempDir('acp-broker-workspace-');
  const policy = join(home, 'policy.yaml');
  writeFileSync(policy, POLICY);
  return { home, workspace, policy, audit: join(home, 'audit.jsonl') };
}

describe('escalations reach the approvals daemon through a real broker', () => {
  it('exec: an ask waits in the daemon; a terminal answer allows it and the agent acts on it', async () => {
    const s = setup();
    daemon = await startDaemon({ home: s.home });
    const run = spawnBroker(['exec', '--policy', s.policy, '--audit', s.audit, '--cwd', s.workspace, '--prompt', 'touch made-by-agent.txt', '--', ...AGENT],
      { ACP_BROKER_HOME: s.home, SDK_AGENT_EXECUTE: '1' });
    const [open] = await openApprovals(s.home);
    expect(open!.request.command).toBe('touch made-by-agent.txt');
    expect((await cli(s.home, ['approvals', 'allow', open!.id])).code).toBe(0);
    expect((await run.exit).code).toBe(0);
    expect(existsSync(join(s.workspace, 'made-by-agent.txt'))).toBe(true);
    const events = auditOf(s.audit).filter((e) => e.event === 'decision');
    expect(events.map((e) => [e.outcome, e.source?.type])).toEqual([['escalated', 'daemon'], ['allowed', 'terminal']]);
  }, 60_000);

  it('exec: the daemon killed during an open approval — the request falls back at once, never allowed', async () => {
    const s = setup();
    daemon = await startDaemon({ home: s.home });
    const run = spawnBroker(['exec', '--policy', s.policy, '--audit', s.audit, '--cwd', s.workspace, '--prompt', 'touch should-not-exist.txt', '--', ...AGENT],
      { ACP_BROKER_HOME: s.home, SDK_AGENT_EXECUTE: '1' });
    await openApprovals(s.home);
    daemon.child.kill('SIGKILL');
    expect((await run.exit).code).toBe(0);
    expect(existsSync(join(s.workspace, 'should-not-exist.txt'))).toBe(false);
    expect(run.stdout().toString()).toContain('touch should-not-exist.txt => reject');
    expect(auditOf(s.audit).at(-1)).toMatchObject({ decision: 'deny', source: { type: 'fallback' } });
  }, 60_000);

  it('run: the editor never answers; the terminal does — the agent gets that one answer and the editor dialog is withdrawn', async () => {
    const s = setup();
    daemon = await startDaemon({ home: s.home });
    const run = spawnBroker(['run', '--policy', s.policy, '--audit', s.audit, '--', ...AGENT], { ACP_BROKER_HOME: s.home, SDK_AGENT_EXECUTE: '1' });
    const send = (m: object) => run.child.stdin.write(`${JSON.stringify(m)}\n`);
    const lines = () => run.stdout().toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { requestId?: unknown }; result?: { stopReason?: string } });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    await waitFor(() => lines().some((m) => m.id === 1), 20_000, () => `no initialize result: ${run.stderr()}`);
    send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: s.workspace, mcpServers: [] } });
    await waitFor(() => lines().some((m) => m.id === 2), 20_000, () => `no session: ${run.stderr()}`);
    expect(lines().find((m) => m.id === 2)).toMatchObject({ result: { sessionId: 'sdk-session-1' } });
    send({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'sdk-session-1', prompt: [{ type: 'text', text: 'touch from-terminal.txt' }] } });
    await waitFor(() => lines().some((m) => m.method === 'session/request_permission'), 20_000, () => `no request: ${run.stderr()}`);
    const request = lines().find((m) => m.method === 'session/request_permission')!;
    const [open] = await openApprovals(s.home);
    expect((await cli(s.home, ['approvals', 'allow', open!.id])).code).toBe(0);
    await waitFor(() => lines().some((m) => m.id === 3), 20_000, () => `no prompt result: ${run.stderr()}`);
    expect(lines().find((m) => m.id === 3)!.result!.stopReason).toBe('end_turn');
    expect(lines().filter((m) => m.method === '$/cancel_request').map((m) => m.params!.requestId)).toEqual([request.id]);
    expect(JSON.stringify(lines().filter((m) => m.method === 'session/update'))).toContain('touch from-terminal.txt => allow-once');
    expect(existsSync(join(s.workspace, 'from-terminal.txt')), `${s.workspace}\n${run.stderr()}\n${run.stdout()}`).toBe(true);
    // The editor's late answer changes nothing.
    send({ jsonrpc: '2.0', id: request.id, result: { outcome: { outcome: 'selected', optionId: 'reject' } } });
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    const decisions = auditOf(s.audit).filter((e) => e.event === 'decision');
    expect(decisions.map((e) => [e.outcome, e.source?.type])).toEqual([['escalated', 'client'], ['allowed', 'terminal']]);
  }, 60_000);

  it('--approvals daemon without a running daemon: one clear line, exit 2, no agent started', async () => {
    const s = setup();
    const run = spawnBroker(['exec', '--approvals', 'daemon', '--policy', s.policy, '--cwd', s.workspace, '--prompt', 'x', '--', ...AGENT], { ACP_BROKER_HOME: s.home });
    expect((await run.exit).code).toBe(2);
    expect(run.stderr().trim().split('\n')).toEqual([expect.stringContaining('no approvals daemon is running')]);
  }, 30_000);

  it('run --approvals daemon without a running daemon: exit 2, and an agent spawned early is not left running', async () => {
    const s = setup();
    // An agent that outlives its input (as claude-agent-acp does), with an argument it ignores that
    // finds it in the process table.
    const marker = `--marker-${process.pid}-${Date.now()}`;
    const lingering = [process.execPath, join(FIXTURES, 'fault-agent.mjs'), marker];
    // A first run records the policy as known good, so the next one spawns the agent before anything else.
    const first = spawnBroker(['run', '--approvals', 'off', '--policy', s.policy, '--', ...lingering], { ACP_BROKER_HOME: s.home });
    first.child.stdin.end();
    await first.exit;
    const second = spawnBroker(['run', '--approvals', 'daemon', '--policy', s.policy, '--', ...lingering], { ACP_BROKER_HOME: s.home, IGNORE_EOF: '1' });
    expect((await second.exit).code).toBe(2);
    expect(second.stderr()).toContain('no approvals daemon is running');
    await waitFor(() => !runningWith(marker), 5000, () => 'the early agent is still running');
  }, 60_000);
});

function runningWith(marker: string): boolean {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) return true;
    } catch { /* gone */ }
  }
  return false;
}

