import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOW_ALL, DENY_ALL, harness, policyFrom } from '../helpers/harness.js';

// Real traffic recorded from claude-code-acp 0.16.2, gemini-cli 0.61.0 and codex-acp 0.16.0 (paths rewritten).
const SHARED_CAPTURES = join(import.meta.dirname, '..', 'fixtures', 'captures');

interface Entry { dir: string; msg: Record<string, unknown> }
const files = readdirSync(SHARED_CAPTURES).filter((f) => f.endsWith('.jsonl')).sort();

function load(file: string): Entry[] {
  return readFileSync(join(SHARED_CAPTURES, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Entry);
}

/** Replay a capture through the broker: the client's side as recorded, minus its permission answers. */
async function replay(file: string, policyText: string) {
  const entries = load(file);
  const h = await harness(await policyFrom(policyText), { nonInteractive: true });
  const permissionIds = new Set<unknown>();
  for (const { dir, msg } of entries) {
    if (dir === 'agent->client') {
      if (msg.method === 'session/request_permission') permissionIds.add(msg.id);
      h.agent(msg);
    } else if (dir === 'client->agent') {
      const isPermissionAnswer = msg.method === undefined && permissionIds.has(msg.id);
      if (!isPermissionAnswer) h.client(msg);
    }
  }
  const requests = entries.filter((e) => e.dir === 'agent->client' && e.msg.method === 'session/request_permission').map((e) => e.msg);
  return { h, requests };
}

describe('replay of real agent captures', () => {
  it('has captures from all three agents', () => {
    expect(files.length).toBeGreaterThanOrEqual(11);
    for (const agent of ['claude-code-acp', 'gemini-cli', 'codex-acp']) expect(files.some((f) => f.startsWith(agent))).toBe(true);
  });

  for (const file of files) {
    it(`${file}: an allowing policy answers with the agent's own allow_once option`, async () => {
      const { h, requests } = await replay(file, ALLOW_ALL);
      expect(requests.length).toBeGreaterThan(0);
      const answers = h.answers();
      for (const request of requests) {
        const options = (request.params as { options: { optionId: string; kind: string }[] }).options;
        const allowOnce = options.find((o) => o.kind === 'allow_once')!;
        expect(answers.get(request.id as string | number)).toEqual({ outcome: { outcome: 'selected', optionId: allowOnce.optionId } });
      }
      // Nothing the broker answered reached the client.
      expect(h.toClient.some((l) => l.includes('session/request_permission'))).toBe(false);
    });

    it(`${file}: a denying policy answers with the agent's reject option`, async () => {
      const { h, requests } = await replay(file, DENY_ALL);
      const answers = h.answers();
      for (const request of requests) {
        const options = (request.params as { options: { optionId: string; kind: string }[] }).options;
        const reject = options.find((o) => o.kind === 'reject_once')!;
        expect(answers.get(request.id as string | number)).toEqual({ outcome: { outcome: 'selected', optionId: reject.optionId } });
      }
      const decisions = h.audit.filter((e) => e.event === 'decision');
      expect(decisions.map((e) => e.decision)).toEqual(requests.map(() => 'deny'));
      expect(decisions.every((e) => e.source?.type === 'rule')).toBe(true);
    });
  }

  it('matches the option the recorded client chose for allow_once captures', async () => {
    for (const file of files.filter((f) => f.endsWith('allow_once.jsonl'))) {
      const entries = load(file);
      const chosen = entries.find((e) => e.dir === 'note' && (e.msg as { event?: string }).event === 'permission-decision')!.msg as { outcome: unknown };
      const { h, requests } = await replay(file, ALLOW_ALL);
      expect(h.answers().get(requests[0]!.id as string | number)).toEqual({ outcome: chosen.outcome });
    }
  });

  it('relays every other recorded line byte-for-byte, in order', async () => {
    for (const file of files) {
      const entries = load(file);
      const { h } = await replay(file, ALLOW_ALL);
      const expected = entries.filter((e) => e.dir === 'agent->client' && e.msg.method !== 'session/request_permission').map((e) => `${JSON.stringify(e.msg)}\n`);
      expect(h.toClient).toEqual(expected);
    }
  });

  it('decides on the facts each agent sends: claude rawInput, gemini title, codex argv', async () => {
    const policy = `
version: 1
default: deny
rules:
  - id: echo-into-workspace
    decision: allow
    match: { kind: execute, command: ["echo hello"] }
  - id: workspace-writes
    decision: allow
    match: { access: write, paths: ["\${workspace}/**"] }
`;
    for (const file of files.filter((f) => f.includes('__shell__'))) {
      const { h } = await replay(file, policy);
      const decision = h.audit.find((e) => e.event === 'decision')!;
      expect(decision.command, file).toBe('echo hello > out.txt');
      expect(decision.items?.map((i) => i.item).sort(), file).toEqual(['echo hello', 'write /home/dev/project/out.txt']);
      expect(decision.decision, file).toBe('allow');
    }
  });
});
