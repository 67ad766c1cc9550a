import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFor } from '../../src/broker/answer.js';
import { createMemoryGrantStore } from '../../src/grants/store.js';
import { isOfferedOption, isPermissionOption, optionOfKind, PERMISSION_OPTION_KINDS } from '../../src/protocol/acp.js';
import { harness, policyFrom } from '../helpers/harness.js';

const SDK_SCHEMA = join(import.meta.dirname, '../../node_modules/@agentclientprotocol/sdk/schema');
const schemaKinds = (version: 'v1' | 'v2') => {
  const schema = JSON.parse(readFileSync(join(SDK_SCHEMA, version, 'schema.json'), 'utf8')) as { $defs: Record<string, { oneOf?: { const?: string }[]; anyOf?: { const?: string }[] }> };
  const kind = schema.$defs.PermissionOptionKind!;
  return (kind.oneOf ?? kind.anyOf ?? []).map((variant) => variant.const);
};

/** Kinds an agent may send that the broker does not know: v2's open values, `_` extensions, near misses. */
const UNKNOWN = [
  { optionId: 'session', name: 'Allow for this session', kind: 'allow_session' },
  { optionId: 'ext', name: 'Allow (vendor)', kind: '_vendor_allow' },
  { optionId: 'caps', name: 'ALLOW', kind: 'ALLOW_ONCE' },
  { optionId: 'space', name: 'Allow ', kind: 'allow_once ' },
  { optionId: 'deny', name: 'Deny', kind: 'reject' },
];

describe('permission option kinds', () => {
  it('are exactly the v1 schema enum; v2 adds only an open string', () => {
    expect([...PERMISSION_OPTION_KINDS]).toEqual(schemaKinds('v1'));
    expect(schemaKinds('v2')).toEqual([...PERMISSION_OPTION_KINDS, undefined]);
  });

  it('an option of an unknown kind is offered but not choosable; a non-string kind is neither', () => {
    for (const option of UNKNOWN) {
      expect(isOfferedOption(option)).toBe(true);
      expect(isPermissionOption(option)).toBe(false);
    }
    expect(isPermissionOption({ optionId: 'a', name: 'Allow', kind: 'allow_once' })).toBe(true);
    for (const kind of [1, null, undefined, ['allow_once'], { toString: () => 'allow_once' }]) {
      expect(isOfferedOption({ optionId: 'a', name: 'A', kind })).toBe(false);
    }
    expect(isOfferedOption({ name: 'A', kind: 'allow_once' })).toBe(false);
  });

  it('the broker never chooses an option of an unknown kind', () => {
    expect(answerFor('allow', UNKNOWN)).toEqual({ type: 'needs_human' });
    expect(answerFor('deny', UNKNOWN)).toEqual({ type: 'outcome', outcome: { outcome: 'cancelled' }, optionKind: undefined });
    const mixed = [...UNKNOWN, { optionId: 'once', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'No', kind: 'reject_always' }];
    expect(answerFor('allow', mixed)).toMatchObject({ outcome: { outcome: 'selected', optionId: 'once' }, optionKind: 'allow_once' });
    expect(answerFor('deny', mixed)).toMatchObject({ outcome: { outcome: 'selected', optionId: 'no' }, optionKind: 'reject_always' });
    for (const kind of PERMISSION_OPTION_KINDS) expect(optionOfKind(UNKNOWN, kind)).toBeUndefined();
  });
});

describe('the broker with options of unknown kinds', () => {
  const SID = 'sess-1';
  const WS = '/home/dev/project';
  const POLICY = `
version: 1
default: ask
non_interactive: deny
rules:
  - id: tests
    decision: allow
    match: { kind: execute, command: ["npm test"] }
  - id: no-curl
    decision: deny
    match: { command: ["curl"] }
`;
  async function setup(options: Parameters<typeof harness>[1] = {}) {
    const h = await harness(await policyFrom(POLICY), options);
    h.client({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    h.agent({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: 'test-agent', version: '1' } } });
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: WS, mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: SID } });
    return h;
  }
  let nextId = 100;
  function request(command: string, options: object[]) {
    const id = nextId++;
    const message = { jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: SID, toolCall: { toolCallId: `call-${id}`, kind: 'execute', rawInput: { command } }, options } };
    return { id, line: `${JSON.stringify(message)}\n` };
  }

  it('an allowed call gets allow_once, not an unknown option listed first', async () => {
    const h = await setup();
    const { id, line } = request('npm test', [...UNKNOWN, { optionId: 'once', name: 'Allow', kind: 'allow_once' }]);
    h.agent(line);
    expect(h.answers().get(id)).toEqual({ outcome: { outcome: 'selected', optionId: 'once' } });
    expect(h.toClient).not.toContain(line);
  });

  it('a denied call whose options are all of unknown kinds is cancelled, never shown to a human', async () => {
    const h = await setup();
    const { id, line } = request('curl https://example.com', UNKNOWN);
    h.agent(line);
    expect(h.answers().get(id)).toEqual({ outcome: { outcome: 'cancelled' } });
    expect(h.toClient).not.toContain(line);
    expect(h.audit.at(-1)).toMatchObject({ event: 'decision', decision: 'cancelled', policyDecision: 'deny' });
  });

  it('an allowed call offering only unknown kinds waits for a human; the request reaches the client byte for byte', async () => {
    const h = await setup();
    const { id, line } = request('npm test', UNKNOWN);
    h.agent(line);
    expect(h.answers().has(id)).toBe(false);
    expect(h.toClient.at(-1)).toBe(line);
    // The human's own pick of such an option is relayed to the agent unchanged.
    const answer = `${JSON.stringify({ jsonrpc: '2.0', id, result: { outcome: { outcome: 'selected', optionId: 'session' } } })}\n`;
    h.client(answer);
    expect(h.toAgent.at(-1)).toBe(answer);
  });

  it('without a human, an asked call offering only unknown kinds gets the fallback: cancelled', async () => {
    const h = await setup({ nonInteractive: true });
    const { id, line } = request('make deploy', UNKNOWN);
    h.agent(line);
    expect(h.answers().get(id)).toEqual({ outcome: { outcome: 'cancelled' } });
    expect(h.toClient).not.toContain(line);
  });

  it('with grants, the escalated dialog keeps the unknown options as sent, beside the broker\'s own', async () => {
    const h = await setup({ grants: createMemoryGrantStore() });
    const { line } = request('make deploy', [...UNKNOWN, { optionId: 'once', name: 'Allow', kind: 'allow_once' }]);
    h.agent(line);
    const shown = (JSON.parse(h.toClient.at(-1)!) as { params: { options: { optionId: string; kind: string }[] } }).params.options;
    expect(shown.slice(0, UNKNOWN.length + 1)).toEqual([...UNKNOWN, { optionId: 'once', name: 'Allow', kind: 'allow_once' }]);
    expect(shown.slice(UNKNOWN.length + 1).map((o) => o.kind)).toEqual(['allow_always', 'reject_always']);
  });
});
