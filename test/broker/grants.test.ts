import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileGrantStore } from '../../src/grants/file-store.js';
import type { GrantStoreProblem } from '../../src/grants/store.js';
import { CLAUDE_OPTIONS, harness, policyFrom } from '../helpers/harness.js';
import { tempDir } from '../helpers/cli.js';

const WS = '/home/dev/project-x';
const OTHER = '/home/dev/project-y';
const OPTIONS = CLAUDE_OPTIONS;
const POLICY = `
version: 1
default: ask
rules:
  - id: status-ok
    decision: allow
    match: { command: ["git status"] }
  - id: never-force
    decision: deny
    match: { command: ["git push --force"] }
`;

async function broker(dir: string, options: { policy?: string; now?: () => Date; problems?: GrantStoreProblem[] } = {}) {
  const store = new FileGrantStore({ dir, ...(options.now ? { now: options.now } : {}), onProblem: (p) => options.problems?.push(p) });
  const h = await harness(await policyFrom(options.policy ?? POLICY), { grants: store, workspace: WS });
  let n = 0;
  const session = (cwd: string) => {
    const sid = `s-${cwd}`;
    h.client({ jsonrpc: '2.0', id: `new-${++n}`, method: 'session/new', params: { cwd, mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: `new-${n}`, result: { sessionId: sid } });
    return sid;
  };
  const request = (sid: string, id: string, command: string) => {
    h.agent({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: sid, toolCall: { toolCallId: `t-${id}`, kind: 'execute', rawInput: { command } }, options: OPTIONS } });
    const forwarded = h.toClient.map((l) => JSON.parse(l) as { id?: string; method?: string; params?: { options: { optionId: string; name: string; kind: string }[] } })
      .filter((m) => m.id === id && m.method === 'session/request_permission').at(-1);
    return forwarded?.params?.options;
  };
  const choose = (id: string, optionId: string) => h.client({ jsonrpc: '2.0', id, result: { outcome: { outcome: 'selected', optionId } } });
  return { h, store, session, request, choose };
}

describe('broker-owned grants', () => {
  it('shows the client the agent\'s one-shot options plus the broker\'s, labelled with what they cover', async () => {
    const b = await broker(tempDir());
    const options = b.request(b.session(WS), 'q1', 'git status && make deploy')!;
    expect(options.map((o) => [o.optionId.replace(/:\d+$/, ''), o.name, o.kind])).toEqual([
      ['allow', 'Allow', 'allow_once'],
      ['reject', 'Reject', 'reject_once'],
      ['acp-broker:allow_always', 'Always allow `make deploy` in project-x', 'allow_always'],
      ['acp-broker:reject_always', 'Always reject `make deploy` in project-x', 'reject_always'],
    ]);
  });

  it('keeps the agent\'s own always options when the policy says so, and turns them into broker grants', async () => {
    const b = await broker(tempDir(), { policy: `${POLICY}\nagent_always_options: keep\n` });
    const sid = b.session(WS);
    const options = b.request(sid, 'q1', 'make deploy')!;
    expect(options.map((o) => o.optionId)).toContain('allow_always');
    b.choose('q1', 'allow_always');
    // The agent gets its allow_once: its hidden rule files stay untouched.
    expect(b.h.answers().get('q1')).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(b.store.list()).toMatchObject([{ decision: 'allow', subject: { type: 'command', argv: ['make', 'deploy'] }, scope: { type: 'project', dir: WS }, source: 'client' }]);
  });

  it('answers the agent with allow_once after "always allow", and decides the next identical request itself', async () => {
    const dir = tempDir();
    const b = await broker(dir);
    const sid = b.session(WS);
    const options = b.request(sid, 'q1', 'make deploy')!;
    b.choose('q1', options.find((o) => o.kind === 'allow_always')!.optionId);
    expect(b.h.answers().get('q1')).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(b.h.audit.at(-1)).toMatchObject({ decision: 'allow', source: { type: 'client' }, grants: [b.store.list()[0]!.id] });
    expect(b.request(sid, 'q2', 'make deploy')).toBeUndefined();
    expect(b.h.answers().get('q2')).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(b.h.audit.at(-1)).toMatchObject({ source: { type: 'grant', grantId: b.store.list()[0]!.id } });
    // A different command is still asked about.
    expect(b.request(sid, 'q3', 'make deploy-prod')).toBeDefined();
  });

  it('a grant applies in a later broker (a new store over the same file), only in the same project', async () => {
    const dir = tempDir();
    const first = await broker(dir);
    const options = first.request(first.session(WS), 'q1', 'make deploy')!;
    first.choose('q1', options.find((o) => o.kind === 'allow_always')!.optionId);
    const later = await broker(dir);
    expect(later.request(later.session(`${WS}/packages/app`), 'q2', 'make deploy')).toBeUndefined();
    expect(later.h.answers().get('q2')).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(later.request(later.session(OTHER), 'q3', 'make deploy')).toBeDefined(); // another project: asked
  });

  it('"always reject" is remembered: the agent gets reject_once now and later', async () => {
    const b = await broker(tempDir());
    const sid = b.session(WS);
    const options = b.request(sid, 'q1', 'curl https://x.example/install.sh')!;
    b.choose('q1', options.find((o) => o.kind === 'reject_always')!.optionId);
    expect(b.h.answers().get('q1')).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    b.request(sid, 'q2', 'curl https://x.example/install.sh');
    expect(b.h.answers().get('q2')).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    expect(b.h.audit.at(-1)).toMatchObject({ decision: 'deny', source: { type: 'grant' } });
  });

  it('passes a one-shot answer through unchanged and records nothing', async () => {
    const b = await broker(tempDir());
    const sid = b.session(WS);
    b.request(sid, 'q1', 'make deploy');
    b.choose('q1', 'allow');
    expect(b.h.toAgent.at(-1)).toBe('{"jsonrpc":"2.0","id":"q1","result":{"outcome":{"outcome":"selected","optionId":"allow"}}}\n');
    expect(b.store.list()).toEqual([]);
  });

  it('a grant never overrides a deny rule, and no "always allow" is offered for denied items', async () => {
    const b = await broker(tempDir());
    b.store.add({ decision: 'allow', subject: { type: 'command', argv: ['git', 'push', '--force'], prefix: false }, scope: { type: 'global' }, source: 'cli' });
    const sid = b.session(WS);
    expect(b.request(sid, 'q1', 'git push --force')).toBeUndefined();
    expect(b.h.answers().get('q1')).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    expect(b.h.audit.at(-1)).toMatchObject({ source: { type: 'rule', ruleId: 'never-force' } });
  });

  it('a managed ask is not loosened by a grant, and no "always allow" is offered for it', async () => {
    const managed = { text: 'version: 1\nrules:\n  - id: deploys-ask\n    decision: ask\n    match: { command: ["make deploy"] }\n', layer: 'managed' as const };
    const store = new FileGrantStore({ dir: tempDir() });
    store.add({ decision: 'allow', subject: { type: 'command', argv: ['make', 'deploy'], prefix: false }, scope: { type: 'global' }, source: 'cli' });
    const h = await harness(await policyFrom(managed, POLICY), { grants: store, workspace: WS });
    h.client({ jsonrpc: '2.0', id: 'new', method: 'session/new', params: { cwd: WS, mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 'new', result: { sessionId: 'x' } });
    h.agent({ jsonrpc: '2.0', id: 'm', method: 'session/request_permission', params: { sessionId: 'x', toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'make deploy' } }, options: OPTIONS } });
    const forwarded = JSON.parse(h.toClient.at(-1)!) as { params: { options: { kind: string }[] } };
    expect(forwarded.params.options.map((o) => o.kind)).toEqual(['allow_once', 'reject_once', 'reject_always']);
  });

  it('expired grants cover nothing', async () => {
    let now = new Date('2026-11-30T12:00:00Z');
    const b = await broker(tempDir(), { policy: `${POLICY}\ngrant_expires_after: 1h\n`, now: () => now });
    const sid = b.session(WS);
    const options = b.request(sid, 'q1', 'make deploy')!;
    b.choose('q1', options.find((o) => o.kind === 'allow_always')!.optionId);
    expect(b.store.list()[0]!.expiresAt).toBe('2026-11-30T13:00:00.000Z');
    now = new Date('2026-11-30T14:00:00Z');
    expect(b.request(sid, 'q2', 'make deploy')).toBeDefined();
  });

  it('a revoked grant no longer applies', async () => {
    const b = await broker(tempDir());
    const sid = b.session(WS);
    b.choose('q1', b.request(sid, 'q1', 'make deploy')!.find((o) => o.kind === 'allow_always')!.optionId);
    expect(b.store.revoke(b.store.list()[0]!.id)).toBe(true);
    expect(b.request(sid, 'q2', 'make deploy')).toBeDefined();
  });

  it('a new grant settles other pending requests it covers and withdraws their dialogs', async () => {
    const b = await broker(tempDir());
    const sid = b.session(WS);
    const first = b.request(sid, 'q1', 'make deploy')!;
    b.request(sid, 'q2', 'make deploy');
    b.request(sid, 'q3', 'make other');
    b.choose('q1', first.find((o) => o.kind === 'allow_always')!.optionId);
    expect(b.h.answers().get('q2')).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(b.h.answers().has('q3')).toBe(false);
    expect(b.h.toClient.at(-1)).toBe('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"q2"}}\n');
    // The client's late answer to the withdrawn dialog is dropped, never delivered twice.
    const before = b.h.toAgent.length;
    b.choose('q2', 'reject');
    expect(b.h.toAgent.length).toBe(before);
  });

  it('a corrupt store is moved aside, reported, and the broker goes on without grants (never more permissive)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'grants.json'), '{"version":1,"grants":[{"id":');
    const problems: GrantStoreProblem[] = [];
    const b = await broker(dir, { problems });
    expect(b.request(b.session(WS), 'q1', 'make deploy')).toBeDefined(); // asked, as with no grants
    expect(problems).toMatchObject([{ code: 'store_corrupt' }]);
    const backup = readdirSync(dir).find((f) => f.startsWith('grants.json.corrupt-'))!;
    expect(readFileSync(join(dir, backup), 'utf8')).toBe('{"version":1,"grants":[{"id":');
  });
});
