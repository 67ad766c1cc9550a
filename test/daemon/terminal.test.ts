import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectApprovals, type DaemonChannel } from '../../src/escalation/daemon-channel.js';
import { offered, approval, cli, recorder, startDaemon, type RunningDaemon } from './helpers.js';

let d: RunningDaemon;
let channel: DaemonChannel;
beforeAll(async () => {
  d = await startDaemon();
  channel = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: d.home }, agent: 'claude-agent-acp' }))!;
});
afterAll(async () => {
  channel.close();
  await d.stop();
});

async function open(approvalId: string, overrides: Parameters<typeof approval>[1] = {}) {
  const r = recorder();
  channel.offer(offered(approval(approvalId, overrides)), r.callbacks);
  let id: string | undefined;
  for (let i = 0; i < 50 && id === undefined; i++) {
    const listed = JSON.parse((await cli(d.home, ['approvals', 'list', '--json'])).stdout) as { id: string }[];
    id = listed.find((a) => a.id.endsWith(`-${approvalId}`))?.id;
  }
  return { r, id: id! };
}

describe('terminal answers: acp-broker approvals', () => {
  it('lists what is waiting in plain words, secrets masked', async () => {
    const { id } = await open('t-list', { command: 'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 npm publish' });
    const list = await cli(d.home, ['approvals']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${id}  claude-agent-acp wants to run \`GITHUB_TOKEN=*** npm publish\` in shop-api`);
    expect(list.stdout).toContain('options: allow_once: Allow | reject_once: Reject | allow_always: Always allow `npm publish` in this project');
    expect(list.stdout).not.toContain('ghp_');
    await cli(d.home, ['approvals', 'deny', id]);
  });

  it('allow and deny send the once options; --always sends the broker\'s always option of that polarity', async () => {
    const cases = [
      [['allow'], 'allow', 'allowed', 'Allow'],
      [['deny'], 'reject', 'denied', 'Reject'],
      [['allow', '--always'], 'acp-broker:allow_always', 'allowed', 'Always allow `npm publish` in this project'],
      [['deny', '--always'], 'acp-broker:reject_always', 'denied', 'Always reject `npm publish` in this project'],
    ] as const;
    for (const [i, [words, optionId, verb, name]] of cases.entries()) {
      const { r, id } = await open(`t-${i}`);
      const answer = await cli(d.home, ['approvals', words[0], id, ...words.slice(1)]);
      expect(answer).toMatchObject({ code: 0, stdout: `${verb} ${id}: ${name}\n` });
      expect(await r.settled).toEqual({ type: 'answer', answer: { type: 'selected', optionId }, via: 'terminal' });
    }
  });

  it('--always without a broker "always" option is a clear error and answers nothing', async () => {
    const { r, id } = await open('t-no-always', { options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'always', name: 'Always (agent)', kind: 'allow_always' }] });
    const answer = await cli(d.home, ['approvals', 'allow', id, '--always']);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toBe(`acp-broker: approval ${id} offers no "always allow" option of the broker's (this request cannot be remembered); answer without --always\n`);
    expect(r.calls).toEqual([]);
    await cli(d.home, ['approvals', 'allow', id]);
    expect(await r.settled).toMatchObject({ type: 'answer', answer: { optionId: 'allow' } });
  });

  it('several terminals answering at once: exactly one wins, the broker gets one answer', async () => {
    for (let round = 0; round < 3; round++) {
      const { r, id } = await open(`t-race-${round}`);
      const answers = await Promise.all(['allow', 'deny', 'allow', 'deny', 'allow'].map((w) => cli(d.home, ['approvals', w, id])));
      expect(answers.filter((a) => a.code === 0)).toHaveLength(1);
      for (const lost of answers.filter((a) => a.code !== 0)) expect(lost.stderr).toMatch(/already answered elsewhere|no open approval/);
      await r.settled;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(r.calls).toHaveLength(1);
    }
  });

  it('usage mistakes are one line and exit 2; an unknown id is exit 1', async () => {
    expect(await cli(d.home, ['approvals', 'allow'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^acp-broker: approvals allow needs the approval's ID/) });
    expect(await cli(d.home, ['approvals', 'maybe', 'x'])).toMatchObject({ code: 2 });
    expect(await cli(d.home, ['approvals', 'allow', 'nope'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^acp-broker: no open approval nope/) });
  });
});
