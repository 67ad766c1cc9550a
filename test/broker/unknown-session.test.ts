import { describe, expect, it } from 'vitest';
import { CLAUDE_OPTIONS, harness, policyFrom } from '../helpers/harness.js';

// A request naming a session the broker never saw start has no workspace: its relative paths are
// unresolvable and no `${workspace}` pattern matches — the broker's own cwd is not a stand-in.

const BROKER_CWD = '/home/dev/project';
const POLICY = `
version: 1
default: ask
rules:
  - id: workspace-files
    decision: allow
    match: { paths: ["\${workspace}/**"] }
  - id: commands
    decision: allow
    match: { command: ["npm test", "cat"] }
  - id: no-ssh
    decision: deny
    match: { paths: ["~/.ssh/**"] }
`;

async function setup() {
  const h = await harness(await policyFrom(POLICY), { workspace: BROKER_CWD, home: '/home/dev' });
  let n = 0;
  const ask = (sessionId: string, toolCall: object) => {
    const id = `q${++n}`;
    h.agent({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId, toolCall: { toolCallId: `t${n}`, ...toolCall }, options: CLAUDE_OPTIONS } });
    return { answer: h.answers().get(id), audit: h.audit.at(-1)! };
  };
  return { h, ask };
}

const allowed = { outcome: { outcome: 'selected', optionId: 'allow' } };
const rejected = { outcome: { outcome: 'selected', optionId: 'reject' } };

describe('a session the broker never saw start', () => {
  it('a relative path is unresolvable, not resolved against the broker\'s cwd', async () => {
    const { ask } = await setup();
    const read = ask('nobody-started-this', { kind: 'read', locations: [{ path: 'README.md' }] });
    expect(read.answer).toBeUndefined();
    expect(read.audit).toMatchObject({ policyDecision: 'ask' });
    expect(read.audit.unresolvable!.join(' ')).toContain('the session is unknown to the broker');
    const shell = ask('nobody-started-this', { kind: 'execute', rawInput: { command: 'cat README.md' } });
    expect(shell.answer).toBeUndefined();
    expect(shell.audit.unresolvable!.join(' ')).toContain('the session is unknown to the broker');
  });

  it('no ${workspace} pattern matches, not even the broker\'s own cwd', async () => {
    const { ask } = await setup();
    expect(ask('nobody-started-this', { kind: 'read', locations: [{ path: `${BROKER_CWD}/README.md` }] }).answer).toBeUndefined();
    expect(ask('nobody-started-this', { kind: 'execute', rawInput: { command: `cat ${BROKER_CWD}/README.md` } }).answer).toBeUndefined();
  });

  it('what does not depend on the workspace is still decided, and deny rules still apply', async () => {
    const { ask } = await setup();
    // A command runs in the session's directory, unknown here, unless the line moves first.
    expect(ask('nobody-started-this', { kind: 'execute', rawInput: { command: 'npm test' } }).answer).toBeUndefined();
    expect(ask('nobody-started-this', { kind: 'execute', rawInput: { command: 'cd /srv/app && npm test' } }).answer).toEqual(allowed);
    expect(ask('nobody-started-this', { kind: 'read', locations: [{ path: '/home/dev/.ssh/id_rsa' }] }).answer).toEqual(rejected);
    expect(ask('nobody-started-this', { kind: 'execute', rawInput: { command: 'cat ~/.ssh/id_rsa' } }).answer).toEqual(rejected);
  });

  it('the same requests in a session that started there are allowed', async () => {
    const { h, ask } = await setup();
    h.client({ jsonrpc: '2.0', id: 'n', method: 'session/new', params: { cwd: BROKER_CWD, mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 'n', result: { sessionId: 'started' } });
    expect(ask('started', { kind: 'read', locations: [{ path: 'README.md' }] }).answer).toEqual(allowed);
    expect(ask('started', { kind: 'execute', rawInput: { command: 'cat README.md' } }).answer).toEqual(allowed);
    expect(ask('started', { kind: 'read', locations: [{ path: `${BROKER_CWD}/README.md` }] }).answer).toEqual(allowed);
  });

  it('a path with a NUL byte is unresolvable', async () => {
    const { h, ask } = await setup();
    h.client({ jsonrpc: '2.0', id: 'n', method: 'session/new', params: { cwd: BROKER_CWD, mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 'n', result: { sessionId: 'started' } });
    const read = ask('started', { kind: 'read', locations: [{ path: `${BROKER_CWD}/a\u0000b` }] });
    expect(read.answer).toBeUndefined();
    expect(read.audit.unresolvable!.join(' ')).toContain('NUL');
  });
});
