import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { command, isAlive, killQuietly, permissionRequest, startBroker, type BrokerRun } from './driver.js';

// Lifecycle faults, against the real CLI: the agent dies, hangs or leaves a process behind; the
// client goes away mid-turn. Nothing may hang, nothing may be left running, nothing may be answered
// after the agent is gone. No assertion depends on timing beyond the test timeouts.

const cleanup: (number | undefined)[] = [];
afterEach(() => {
  for (const pid of cleanup.splice(0)) killQuietly(pid);
});

async function started(run: BrokerRun): Promise<number> {
  const { pid } = await run.report('hello');
  cleanup.push(pid as number);
  return pid as number;
}

/** An escalated request the client has seen and not answered. */
async function pendingEscalation(run: BrokerRun): Promise<void> {
  run.send(command('emit', { lines: [permissionRequest(41, 'make deploy')] }));
  const forwarded = await run.waitFor((l) => l.message?.method === 'session/request_permission', 'the escalated request');
  expect(forwarded.message!.id).toBe(41);
  await run.report('emitted');
}

/** A broker whose agent is streaming chunks to the client, after an escalated request unless `escalate` is false. */
async function streaming(options: Parameters<typeof startBroker>[0], escalate = true): Promise<{ run: BrokerRun; agentPid: number }> {
  const run = startBroker(options);
  const agentPid = await started(run);
  if (escalate) await pendingEscalation(run);
  run.send(command('stream'));
  await run.waitFor((l) => l.text?.includes('"chunk 3"') === true, 'streamed chunks');
  return { run, agentPid };
}

describe('the agent crashes while a permission request is pending', () => {
  it('exits with the agent\'s exit code, answers nothing further, and the client sees EOF (client stdin still open)', async () => {
    const run = startBroker();
    const agentPid = await started(run);
    await pendingEscalation(run);
    const before = run.lines.length;
    run.send(command('crash', { code: 3 }));
    const { code } = await run.exit;
    await run.stdoutEnded;
    expect(code).toBe(3);
    // Nothing after the escalated request: no cancel, no answer, no broker message.
    expect(run.lines.slice(before)).toEqual([]);
    expect(isAlive(agentPid)).toBe(false);
    // The late answer of the client goes nowhere and breaks nothing.
    run.send({ jsonrpc: '2.0', id: 41, result: { outcome: { outcome: 'selected', optionId: 'yes' } } });
    expect(run.stderr()).not.toMatch(/TypeError|RangeError|at .*\.js:\d+/);
  });

  it('exits 128+9 when the agent is killed by SIGKILL, and writes nothing to the dead agent\'s audit as allowed', async () => {
    const run = startBroker();
    await started(run);
    await pendingEscalation(run);
    run.send(command('crash', { signal: 'SIGKILL' }));
    const { code } = await run.exit;
    expect(code).toBe(128 + 9);
    const events = readFileSync(run.audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { outcome?: string });
    expect(events.map((e) => e.outcome)).toEqual(['escalated']);
  });
});

describe('an agent that ignores stdin EOF', () => {
  it('is terminated with SIGTERM after the grace period; its pid is gone when the broker exits', async () => {
    const run = startBroker({ args: ['--grace-ms', '200'], env: { IGNORE_EOF: '1' } });
    const agentPid = await started(run);
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(128 + 15);
    expect(isAlive(agentPid)).toBe(false);
  });

  it('is killed with SIGKILL when it ignores SIGTERM as well', async () => {
    const run = startBroker({ args: ['--grace-ms', '200'], env: { IGNORE_EOF: '1', IGNORE_TERM: '1' } });
    const agentPid = await started(run);
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(128 + 9);
    expect(isAlive(agentPid)).toBe(false);
  });

  it('does not keep the broker alive through a grandchild that holds the agent\'s stdout open', async () => {
    const run = startBroker({ args: ['--grace-ms', '200'], env: { IGNORE_EOF: '1' } });
    const agentPid = await started(run);
    run.send(command('spawn-grandchild'));
    const { pid: grandchild } = await run.report('grandchild');
    cleanup.push(grandchild as number);
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(128 + 15);
    expect(isAlive(agentPid)).toBe(false);
    // It held the pipe, and the broker did not wait for it: it ended with the agent's process group.
    expect(isAlive(grandchild as number)).toBe(false);
  }, 20_000);

  it('does not keep the broker alive through a grandchild that keeps writing to the agent\'s stdout', async () => {
    const run = startBroker({ args: ['--grace-ms', '200'], env: { IGNORE_EOF: '1' } });
    const agentPid = await started(run);
    run.send(command('spawn-grandchild', { chatty: true }));
    const { pid: grandchild } = await run.report('grandchild');
    cleanup.push(grandchild as number);
    await run.report('grandchild-says');
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(128 + 15);
    expect(isAlive(agentPid)).toBe(false);
  }, 30_000);
});

describe('the client disappears mid-turn', () => {
  it('stdin closed while a request is escalated and the agent streams: the agent is stopped, the broker exits', async () => {
    const { run, agentPid } = await streaming({ env: { EXIT_CODE: '0' } });
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(isAlive(agentPid)).toBe(false);
  });

  it('stdin closed while a request is escalated: the agent gets one answer for it, cancelled, before its input closes', async () => {
    const record = join(tmpdir(), `acp-broker-record-${process.pid}-${Date.now()}.bin`);
    const run = startBroker({ env: { EXIT_CODE: '0', RECORD_TO: record } });
    await started(run);
    await pendingEscalation(run);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    const answers = readFileSync(record, 'utf8').split('\n').filter((l) => l.includes('"id":41'));
    expect(answers).toEqual(['{"jsonrpc":"2.0","id":41,"result":{"outcome":{"outcome":"cancelled"}}}']);
    const events = readFileSync(run.audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { decision?: string; outcome?: string; source?: unknown });
    expect(events.at(-1)).toMatchObject({ decision: 'cancelled', outcome: 'cancelled', source: { type: 'cancelled', by: 'client-gone' } });
    expect(events.some((e) => e.outcome === 'allowed')).toBe(false);
  });

  it('stdin closed, the agent ignores EOF while streaming: terminated after the grace period', async () => {
    const { run, agentPid } = await streaming({ args: ['--grace-ms', '200'], env: { IGNORE_EOF: '1' } });
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(128 + 15);
    expect(isAlive(agentPid)).toBe(false);
  });

  it('stdout closed while the agent streams (stdin left open): the agent is stopped, the broker exits', async () => {
    const { run, agentPid } = await streaming({ args: ['--grace-ms', '200'], env: { EXIT_CODE: '5' } });
    run.child.stdout.destroy();
    const { code } = await run.exit;
    expect(code).toBe(5); // the agent saw EOF on its stdin and exited by itself
    expect(isAlive(agentPid)).toBe(false);
  });

  it('stdout closed, the agent ignores EOF: terminated after the grace period', async () => {
    const { run, agentPid } = await streaming({ args: ['--grace-ms', '200'], env: { IGNORE_EOF: '1', IGNORE_TERM: '1' } }, false);
    run.child.stdout.destroy();
    const { code } = await run.exit;
    expect(code).toBe(128 + 9);
    expect(isAlive(agentPid)).toBe(false);
  });

  it('stdout and stderr closed, stdin open, the agent writes to both: no crash on EPIPE, the agent is stopped', async () => {
    const run = startBroker({ args: ['--grace-ms', '200'], env: { EXIT_CODE: '6' } });
    const agentPid = await started(run);
    run.child.stderr.destroy();
    run.child.stdout.destroy();
    // The agent answers with output on stdout; its stderr goes to the broker's closed stderr.
    run.send(command('emit', { lines: [permissionRequest(1, 'make deploy')] }));
    run.send(command('stream', { stderr: true }));
    const { code } = await run.exit;
    expect(code).toBe(6);
    expect(isAlive(agentPid)).toBe(false);
  });

  it('the agent cannot be started: exit 127 with a message, nothing on stdout', async () => {
    const run = startBroker({ agent: [join(tmpMissing(), 'no-such-agent')] });
    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(127);
    expect(run.lines).toEqual([]);
    expect(run.stderr()).toContain('cannot start the agent');
  });
});

function tmpMissing(): string {
  return '/nonexistent-acp-broker-dir';
}
