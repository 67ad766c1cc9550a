import { describe, expect, it } from 'vitest';
import { agentName } from '../../src/cli/approvals.js';

// What a notification or the inbox calls an agent before it names itself: never the interpreter.
describe('the agent name shown before initialize', () => {
  it.each([
    [['claude-agent-acp'], 'claude-agent-acp'],
    [['/usr/local/bin/gemini', '--acp'], 'gemini'],
    [['node', '/home/u/.cache/agents/claude-agent-acp@0.23.1/node_modules/@zed-industries/claude-agent-acp/dist/index.js'], 'claude-agent-acp'],
    [['node', '--no-warnings', '/opt/x/node_modules/@google/gemini-cli/bundle/gemini.js', '--acp'], 'gemini-cli'],
    [['/usr/bin/node', '/work/agents/my-agent.mjs'], 'my-agent'],
    [['npx', 'codex-acp'], 'codex-acp'],
    [['node'], 'node'],
    [[], undefined],
  ])('%j → %s', (command, name) => {
    expect(agentName(command)).toBe(name);
  });
});
