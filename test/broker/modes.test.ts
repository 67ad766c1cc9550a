import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../../src/policy/load.js';
import { harness, policyFrom } from '../helpers/harness.js';

const POLICY = `
version: 1
default: ask
modes:
  deny: [bypassPermissions, yolo, full-access, auto, auto-edit]
rules:
  - id: tests
    decision: allow
    match: { kind: execute, command: ["npm test"] }
`;

/** Modes as qwen-code offers them in an ACP session: it starts in `auto`, where its own model approves. */
const QWEN_MODES = {
  currentModeId: 'auto',
  availableModes: ['plan', 'default', 'auto-edit', 'auto', 'yolo'].map((id) => ({ id, name: id })),
};
const CODEX_RESULT = {
  sessionId: 'codex-s',
  modes: { currentModeId: 'read-only', availableModes: ['read-only', 'auto', 'full-access'].map((id) => ({ id, name: id })) },
  configOptions: [{ id: 'mode', name: 'Approval Preset', category: 'mode', type: 'select', currentValue: 'read-only',
    options: ['read-only', 'auto', 'full-access'].map((value) => ({ value, name: value })) }],
};

async function setup(policy = POLICY) {
  const h = await harness(await policyFrom(policy));
  h.client({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
  h.agent({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: 'qwen-code', version: '0.24.4' } } });
  return { h };
}

const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, any>);

describe('session modes cannot switch the policy off', () => {
  it('the editor asking for a forbidden mode gets an error that says why; the agent never sees the request', async () => {
    const { h } = await setup();
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's', modes: { currentModeId: 'default', availableModes: [{ id: 'default' }, { id: 'bypassPermissions' }] } } });
    const before = h.toAgent.length;
    h.client({ jsonrpc: '2.0', id: 2, method: 'session/set_mode', params: { sessionId: 's', modeId: 'bypassPermissions' } });
    expect(h.toAgent.length).toBe(before);
    const answer = parsed(h.toClient).find((m) => m.id === 2)!;
    expect(answer.error.code).toBe(-32001);
    expect(answer.error.message).toMatch(/forbids the mode `bypassPermissions` \(policy-0\.yaml\)/);
    expect(h.audit.at(-1)).toMatchObject({ event: 'mode', sessionId: 's', mode: 'bypassPermissions', decision: 'deny' });
    // An allowed mode goes through untouched.
    h.client({ jsonrpc: '2.0', id: 3, method: 'session/set_mode', params: { sessionId: 's', modeId: 'default' } });
    expect(parsed(h.toAgent).at(-1)).toMatchObject({ id: 3, method: 'session/set_mode' });
  });

  it('a mode-category config option is gated the same way (codex-acp\'s Approval Preset)', async () => {
    const { h } = await setup();
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: CODEX_RESULT });
    const offered = parsed(h.toClient).find((m) => m.id === 1)!.result;
    expect(offered.modes.availableModes.map((m: { id: string }) => m.id)).toEqual(['read-only']);
    expect(offered.configOptions[0].options.map((o: { value: string }) => o.value)).toEqual(['read-only']);
    const before = h.toAgent.length;
    h.client({ jsonrpc: '2.0', id: 2, method: 'session/set_config_option', params: { sessionId: 'codex-s', configId: 'mode', value: 'full-access' } });
    expect(h.toAgent.length).toBe(before);
    expect(parsed(h.toClient).find((m) => m.id === 2)!.error.message).toContain('full-access');
  });

  it('a session that starts in a forbidden mode is moved to one that asks before the editor sees it', async () => {
    const { h } = await setup();
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 'q', modes: QWEN_MODES } });
    // Not yet forwarded: the broker first asks the agent to switch.
    expect(parsed(h.toClient).some((m) => m.id === 1)).toBe(false);
    const request = parsed(h.toAgent).at(-1)!;
    expect(request).toMatchObject({ method: 'session/set_mode', params: { sessionId: 'q', modeId: 'default' } });
    expect(String(request.id)).toMatch(/^acp-broker\//);
    h.agent({ jsonrpc: '2.0', id: request.id, result: {} });
    // The agent's answer to the broker's own request is not relayed; the session result is, switched.
    expect(parsed(h.toClient).some((m) => m.id === request.id)).toBe(false);
    const result = parsed(h.toClient).find((m) => m.id === 1)!.result;
    expect(result.modes.currentModeId).toBe('default');
    expect(result.modes.availableModes.map((m: { id: string }) => m.id)).toEqual(['plan', 'default']);
    expect(h.audit.at(-1)).toMatchObject({ event: 'mode', sessionId: 'q', mode: 'default', decision: 'allow' });
    expect(h.audit.at(-1)!.reason).toContain('started in the forbidden mode `auto`');
  });

  it('prefers the policy\'s `prefer` list', async () => {
    const { h } = await setup(POLICY.replace('modes:\n', 'modes:\n  prefer: [plan]\n'));
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 'q', modes: QWEN_MODES } });
    expect(parsed(h.toAgent).at(-1)).toMatchObject({ method: 'session/set_mode', params: { modeId: 'plan' } });
  });

  it('refuses the session when the agent will not leave the forbidden mode, or offers no other', async () => {
    const { h } = await setup();
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 'q', modes: QWEN_MODES } });
    const request = parsed(h.toAgent).at(-1)!;
    h.agent({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: 'no' } });
    expect(parsed(h.toClient).find((m) => m.id === 1)!.error.message).toMatch(/forbidden mode `auto` and the agent refused to leave it/);

    h.client({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 2, result: { sessionId: 'y', modes: { currentModeId: 'yolo', availableModes: [{ id: 'yolo' }] } } });
    expect(parsed(h.toClient).find((m) => m.id === 2)!.error.message).toMatch(/offers no other mode/);
  });

  it('an agent that switches itself into a forbidden mode is switched back', async () => {
    const { h } = await setup();
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's', modes: { currentModeId: 'default', availableModes: [{ id: 'default' }, { id: 'yolo' }] } } });
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'current_mode_update', currentModeId: 'yolo' } } });
    const request = parsed(h.toAgent).at(-1)!;
    expect(request).toMatchObject({ method: 'session/set_mode', params: { sessionId: 's', modeId: 'default' } });
    h.agent({ jsonrpc: '2.0', id: request.id, result: {} });
    expect(h.audit.at(-1)).toMatchObject({ event: 'mode', mode: 'yolo', decision: 'deny' });
  });

  it('a session in an allowed mode is forwarded byte for byte', async () => {
    const { h } = await setup();
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    const line = `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 's', modes: { currentModeId: 'default', availableModes: [{ id: 'default' }, { id: 'plan' }] } } })}\n`;
    h.agent(line);
    expect(h.toClient.at(-1)).toBe(line);
  });
});

describe('unprompted: stop', () => {
  it('cancels the turn at the first edit the agent makes without asking, and tells the editor why', async () => {
    const { h } = await setup(`${POLICY}unprompted: stop\n`);
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } });
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'x', kind: 'edit', title: 'Edit .git/hooks/pre-commit', status: 'in_progress' } } });
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'completed' } } });
    expect(parsed(h.toAgent).at(-1)).toEqual({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } });
    expect(h.toClient.some((l) => l.includes('agent_message_chunk') && l.includes('without asking for permission'))).toBe(true);
    // With `warn` (the default) the same call is only recorded.
    const { h: warned } = await setup();
    warned.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    warned.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } });
    const before = warned.toAgent.length;
    warned.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'x', kind: 'edit', title: 'Edit a', status: 'completed' } } });
    expect(warned.toAgent.length).toBe(before);
    expect(warned.audit.at(-1)).toMatchObject({ event: 'unprompted' });
  });
});

describe('the modes section of a policy', () => {
  it('reads deny and prefer, and reports mistakes with their place', () => {
    const ok = loadPolicyText('version: 1\nmodes:\n  deny: [yolo]\n  prefer: default\nunprompted: stop\nrules: []\n', 'p.yaml', 'user');
    expect(ok.policy?.modes).toEqual({ deny: ['yolo'], prefer: ['default'] });
    expect(ok.policy?.unprompted).toBe('stop');
    const bad = loadPolicyText('version: 1\nmodes:\n  denny: [yolo]\nunprompted: halt\nrules: []\n', 'p.yaml', 'user');
    expect(bad.policy).toBeUndefined();
    expect(bad.diagnostics.map((d) => `${d.location.line}: ${d.message}`)).toEqual([
      '3: `modes`: unknown key `denny`',
      '4: `unprompted`: `halt` is not one of warn, stop',
    ]);
  });
});

describe('history a loaded session replays', () => {
  it('is not an unprompted tool call (it ran, or not, before this connection), and unprompted: stop does not fire', async () => {
    const { h } = await setup(`${POLICY}unprompted: stop\n`);
    h.client({ jsonrpc: '2.0', id: 5, method: 'session/load', params: { sessionId: 'old', cwd: '/home/dev/project', mcpServers: [] } });
    const before = h.toAgent.length;
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'old', update: { sessionUpdate: 'tool_call', toolCallId: 'r1', kind: 'execute', title: 'git push --force', status: 'in_progress' } } });
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'old', update: { sessionUpdate: 'tool_call_update', toolCallId: 'r1', status: 'failed' } } });
    h.agent({ jsonrpc: '2.0', id: 5, result: {} });
    expect(h.audit.some((e) => e.event === 'unprompted')).toBe(false);
    expect(h.toAgent.length).toBe(before);
    // Once loaded, a tool call that runs without asking is one.
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'old', update: { sessionUpdate: 'tool_call', toolCallId: 'r2', kind: 'edit', title: 'Edit a', status: 'completed' } } });
    expect(h.audit.at(-1)).toMatchObject({ event: 'unprompted', toolCallId: 'r2' });
  });
});

describe('tool names', () => {
  it('qwen-code\'s _meta.toolName is the `tool` rules see', async () => {
    const h = await harness(await policyFrom('version: 1\ndefault: ask\nrules:\n  - id: shell-tool\n    decision: deny\n    match: { tool: run_shell_command }\n'), { nonInteractive: true });
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } });
    h.agent({ jsonrpc: '2.0', id: 9, method: 'session/request_permission', params: { sessionId: 's', options: [{ optionId: 'proceed_once', name: 'Yes', kind: 'allow_once' }, { optionId: 'cancel', name: 'No', kind: 'reject_once' }],
      toolCall: { toolCallId: 'q1', kind: 'execute', title: 'ls (list)', rawInput: { command: 'ls' }, _meta: { toolName: 'run_shell_command' } } } });
    expect(h.audit.at(-1)).toMatchObject({ tool: 'run_shell_command', decision: 'deny' });
  });
});
