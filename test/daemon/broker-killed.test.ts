import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, spawnBroker, tempDir } from '../helpers/cli.js';
import { cli, listApprovals, poll, startDaemon, waitFor, type RunningDaemon } from './helpers.js';

// A broker killed (SIGKILL: no goodbye on the socket) while its approval is open in the daemon: the
// daemon drops that approval and carries on serving the next broker.

const AGENT = [process.execPath, join(FIXTURES, 'sdk-agent.mjs')];
const POLICY = 'version: 1\ndefault: ask\nnon_interactive: deny\nrules: []\n';

let daemon: RunningDaemon | undefined;
const groups: number[] = [];
const dirs: string[] = [];
afterEach(async () => {
  // The killed broker's agent leads its own process group: it is ours to end.
  for (const pgid of groups.splice(0)) try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
  await daemon?.stop();
  daemon = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function status(home: string): Promise<string> {
  return (await cli(home, ['daemon', 'status'])).stdout;
}

/** The direct children of a process (Linux). */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
}

describe.runIf(process.platform === 'linux')('a broker killed while its approval is open in the daemon', () => {
  it('the daemon drops the approval and answers the next broker as before', async () => {
    const home = tempDir('acp-broker-killed-');
    const workspace = tempDir('acp-broker-workspace-');
    dirs.push(home, workspace);
    const policy = join(home, 'policy.yaml');
    writeFileSync(policy, POLICY);
    daemon = await startDaemon({ home });

    // The first broker: `run`, its editor never answers; its escalation is open in the daemon.
    const first = spawnBroker(['run', '--policy', policy, '--audit', join(home, 'first.jsonl'), '--', ...AGENT], { ACP_BROKER_HOME: home, SDK_AGENT_EXECUTE: '1' });
    const send = (m: object) => first.child.stdin.write(`${JSON.stringify(m)}\n`);
    const lines = () => first.stdout().toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: unknown; method?: string });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    await waitFor(() => lines().some((m) => m.id === 1), 20_000, () => `no initialize result: ${first.stderr()}`);
    groups.push(...childrenOf(first.child.pid!));
    await poll('the first broker to connect to the daemon', async () => (/\b1 broker\(s\) connected/.test(await status(home)) ? true : undefined));
    send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: workspace, mcpServers: [] } });
    await waitFor(() => lines().some((m) => m.id === 2), 20_000, () => `no session: ${first.stderr()}`);
    send({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'sdk-session-1', prompt: [{ type: 'text', text: 'touch never-answered.txt' }] } });
    const open = await poll('the first approval', async () => (await listApprovals(home))[0]);
    expect(open).toMatchObject({ broker: { pid: first.child.pid }, request: { command: 'touch never-answered.txt' } });
    expect(lines().filter((m) => m.method === 'session/request_permission')).toHaveLength(1);

    first.child.kill('SIGKILL');
    expect(await first.exit).toEqual({ code: null, signal: 'SIGKILL' });
    // Dropped, not left for someone to answer into the void.
    await poll('the approval to be dropped', async () => ((await listApprovals(home)).length === 0 ? true : undefined), 5_000);
    expect(await status(home)).toMatch(/0 broker\(s\) connected, 0 approval\(s\) open/);
    const late = await cli(home, ['approvals', 'allow', open.id]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain(`no open approval ${open.id}`);
    expect(daemon.child.exitCode).toBeNull();
    expect(existsSync(join(workspace, 'never-answered.txt'))).toBe(false);

    // The second broker (`exec`): its approval is listed alone, answered, acted on.
    const secondAudit = join(home, 'second.jsonl');
    const second = spawnBroker(['exec', '--policy', policy, '--audit', secondAudit, '--cwd', workspace, '--prompt', 'touch after-the-crash.txt', '--', ...AGENT],
      { ACP_BROKER_HOME: home, SDK_AGENT_EXECUTE: '1' });
    const next = await poll('the second approval', async () => (await listApprovals(home))[0]);
    expect(await listApprovals(home)).toEqual([next]);
    expect(next).toMatchObject({ broker: { pid: second.child.pid }, request: { command: 'touch after-the-crash.txt' } });
    expect(next.id).not.toBe(open.id);
    expect((await cli(home, ['approvals', 'allow', next.id])).code).toBe(0);
    expect((await second.exit).code).toBe(0);
    expect(existsSync(join(workspace, 'after-the-crash.txt'))).toBe(true);
    const decisions = readFileSync(secondAudit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; outcome?: string; source?: { type: string } }).filter((e) => e.event === 'decision');
    expect(decisions.map((e) => [e.outcome, e.source?.type])).toEqual([['escalated', 'daemon'], ['allowed', 'terminal']]);
    expect(daemon.stderr()).not.toMatch(/error|exception/i);
  }, 90_000);
});
