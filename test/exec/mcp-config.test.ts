import { describe, expect, it } from 'vitest';
import { authMessage } from '../../src/exec/auth-hint.js';
import { parseMcpServers } from '../../src/exec/mcp-config.js';

describe('--mcp-config shapes', () => {
  it('the settings map (Claude and Gemini spellings) becomes ACP McpServers', () => {
    expect(parseMcpServers({ mcpServers: {
      local: { command: 'npx', args: ['-y', 'srv'] },
      typed: { type: 'stdio', command: '/bin/srv', env: { A: 'b' } },
      claudeHttp: { type: 'http', url: 'https://h/mcp' },
      claudeSse: { type: 'sse', url: 'https://h/sse', headers: { Authorization: 'Bearer x' } },
      geminiHttp: { httpUrl: 'https://g/mcp' },
      geminiSse: { url: 'https://g/sse' },
    } })).toEqual([
      { name: 'local', command: 'npx', args: ['-y', 'srv'], env: [] },
      { name: 'typed', command: '/bin/srv', args: [], env: [{ name: 'A', value: 'b' }] },
      { type: 'http', name: 'claudeHttp', url: 'https://h/mcp', headers: [] },
      { type: 'sse', name: 'claudeSse', url: 'https://h/sse', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
      { type: 'http', name: 'geminiHttp', url: 'https://g/mcp', headers: [] },
      { type: 'sse', name: 'geminiSse', url: 'https://g/sse', headers: [] },
    ]);
  });

  it('an ACP array (bare or under mcpServers) passes as it is, checked', () => {
    const servers = [{ name: 'a', command: '/bin/a', args: [], env: [{ name: 'K', value: 'v' }] }, { type: 'http', name: 'h', url: 'https://x', headers: [] }];
    expect(parseMcpServers(servers)).toEqual(servers);
    expect(parseMcpServers({ mcpServers: servers })).toEqual(servers);
  });

  it('anything else says what is wrong', () => {
    expect(() => parseMcpServers('x')).toThrow(/expected/);
    expect(() => parseMcpServers({ mcpServers: { s: { command: 'x', args: 'not a list' } } })).toThrow('mcpServers.s.args must be a list of strings');
    expect(() => parseMcpServers({ mcpServers: { s: { command: 'x', env: { A: 1 } } } })).toThrow('mcpServers.s.env must map names to strings');
    expect(() => parseMcpServers({ mcpServers: { s: { type: 'ws', url: 'x' } } })).toThrow(/needs a "command"/);
    expect(() => parseMcpServers([{ command: 'x' }])).toThrow('mcpServers[0] needs a "name"');
    expect(() => parseMcpServers([{ name: 'n', type: 'acp', serverId: 'x' }])).toThrow(/unknown type "acp"/);
    expect(() => parseMcpServers([{ name: 'n', command: '/x', args: [], env: [{ name: 'A' }] }])).toThrow(/env must be a list/);
  });
});

describe('the authentication message', () => {
  const methods = [{ id: 'login', name: 'Log in', description: 'with a browser' }, { id: 'api-key', name: 'API key' }];
  it('names the methods and the variable the kind of agent reads', () => {
    expect(authMessage(['npx', '@agentclientprotocol/claude-agent-acp'], methods)).toMatch(/login \(Log in: with a browser\); api-key \(API key\).*Set ANTHROPIC_API_KEY/);
    expect(authMessage(['gemini', '--acp'], methods)).toContain('Set GEMINI_API_KEY');
    expect(authMessage(['node', '/x/codex-acp/bin.js'], [])).toContain('Set OPENAI_API_KEY');
    expect(authMessage(['qwen', '--acp'], [])).toContain('Set OPENAI_API_KEY');
    expect(authMessage(['my-agent'], [])).toContain('Give it its API key');
  });
});
