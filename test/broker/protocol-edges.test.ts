import { describe, expect, it } from 'vitest';
import { OversizedAgentLines } from '../../src/relay/oversized-agent-lines.js';
import { trailingTopLevelId } from '../../src/protocol/json-head.js';
import { ALLOW_ALL, CLAUDE_OPTIONS, harness, policyFrom } from '../helpers/harness.js';

// Protocol edges where a lenient reader could see a request the broker did not judge: each is
// refused (never relayed undecided) or answered with an error, never left hanging.

async function setup(nonInteractive = true) {
  const h = await harness(await policyFrom(ALLOW_ALL), { nonInteractive });
  h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
  h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } });
  return h;
}
const PERMISSION = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'session/request_permission', params: {
  sessionId: 's', toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command: 'npm test' } }, options: CLAUDE_OPTIONS } });

describe('malformed ids', () => {
  for (const id of [true, { n: 1 }, [1]]) {
    it(`a permission request with id ${JSON.stringify(id)} is an invalid request: dropped, never relayed nor answered with an id it does not have`, async () => {
      const h = await setup();
      const [clientBefore, agentBefore] = [h.toClient.length, h.toAgent.length];
      h.agent(PERMISSION(id));
      expect(h.toClient.length).toBe(clientBefore);
      expect(h.toAgent.length).toBe(agentBefore);
    });
  }

  it('an ordinary notification with an odd id still passes through untouched', async () => {
    const h = await setup();
    const line = '{"jsonrpc":"2.0","id":true,"method":"_vendor/ping","params":{}}\n';
    h.agent(line);
    expect(h.toClient.at(-1)).toBe(line);
  });
});

describe('lines that are not JSON but a lenient client might read', () => {
  const request = JSON.stringify(PERMISSION(41));
  const variants: Record<string, string> = {
    'a byte order mark': `\uFEFF${request}\n`,
    'a trailing comma': `${request.slice(0, -1)},}\n`,
    'a comment': `${request} // allow\n`,
  };
  for (const [name, line] of Object.entries(variants)) {
    it(`${name}: not relayed, and the agent gets an error for the request`, async () => {
      const h = await setup(false);
      const before = h.toClient.length;
      h.agent(line);
      expect(h.toClient.length).toBe(before);
      expect(JSON.parse(h.toAgent.at(-1)!)).toMatchObject({ id: 41, error: { code: -32600 } });
    });
  }

  it('a JSON-RPC batch holding a permission request: not relayed, the request refused', async () => {
    const h = await setup(false);
    const before = h.toClient.length;
    h.agent(`${JSON.stringify([PERMISSION(42), { jsonrpc: '2.0', method: 'session/update', params: {} }])}\n`);
    expect(h.toClient.length).toBe(before);
    expect(JSON.parse(h.toAgent.at(-1)!)).toMatchObject({ id: 42, error: { code: -32600 } });
  });

  it('text that is not JSON and names no intercepted method still passes (the relay is transparent)', async () => {
    const h = await setup(false);
    h.agent('plain log line from an agent\n');
    expect(h.toClient.at(-1)).toBe('plain log line from an agent\n');
  });
});

describe('enforced calls the broker cannot read exactly are refused, not forwarded', () => {
  const calls: Record<string, { method: string; params: Record<string, unknown>; reason: RegExp }> = {
    'a path that is not a string': { method: 'fs/read_text_file', params: { path: ['/etc/passwd'] }, reason: /path is not a string/ },
    'a relative path': { method: 'fs/write_text_file', params: { path: 'out.txt', content: 'x' }, reason: /not absolute/ },
    'a non-string terminal argument': { method: 'terminal/create', params: { command: 'ls', args: ['-la', { x: 1 }] }, reason: /args are not a list of strings/ },
    'an env entry that changes what runs': { method: 'terminal/create', params: { command: 'git', args: ['status'], env: [{ name: 'BASH_ENV', value: '/tmp/x' }] }, reason: /sets BASH_ENV/ },
    'a command with its own arguments besides args': { method: 'terminal/create', params: { command: 'rm -rf', args: ['/'] }, reason: /arguments of its own besides args/ },
  };
  for (const [name, { method, params, reason }] of Object.entries(calls)) {
    it(name, async () => {
      const h = await setup(false);
      const before = h.toClient.length;
      h.agent({ jsonrpc: '2.0', id: 50, method, params: { sessionId: 's', ...params } });
      expect(h.toClient.length).toBe(before);
      const answer = JSON.parse(h.toAgent.at(-1)!) as { id: number; error: { code: number; message: string } };
      expect(answer.id).toBe(50);
      expect(answer.error.message).toMatch(reason);
    });
  }

  it('a well-formed call still reaches the editor', async () => {
    const h = await setup(false);
    h.agent({ jsonrpc: '2.0', id: 51, method: 'terminal/create', params: { sessionId: 's', command: 'npm', args: ['test'], env: [{ name: 'CI', value: '1' }] } });
    expect(JSON.parse(h.toClient.at(-1)!)).toMatchObject({ id: 51, method: 'terminal/create' });
  });
});

describe('an oversized request whose id comes after its params (codex-acp\'s key order)', () => {
  it('is answered with an error instead of hanging', () => {
    const toAgent: string[] = [];
    const guard = new OversizedAgentLines({ maxLineBytes: 100, toClient: () => {}, toAgent: (b) => toAgent.push(b.toString()), warn: () => {} });
    const line = `{"jsonrpc":"2.0","method":"session/request_permission","params":{"pad":"${'x'.repeat(20_000)}","nested":{"id":1}},"id":99}\n`;
    for (let at = 0; at < line.length; at += 3000) guard.piece(Buffer.from(line.slice(at, at + 3000)), at + 3000 >= line.length);
    expect(toAgent.map((a) => JSON.parse(a))).toEqual([{ jsonrpc: '2.0', id: 99, error: expect.objectContaining({ code: -32603 }) }]);
  });

  it('reads only the message\'s own id from the end of the line', () => {
    expect(trailingTopLevelId(Buffer.from(',"id":"abc"}\n'))).toBe('abc');
    expect(trailingTopLevelId(Buffer.from(',"id":7,"jsonrpc":"2.0"}'))).toBe(7);
    expect(trailingTopLevelId(Buffer.from('{"x":{"id":7}}'))).toBeUndefined();
    expect(trailingTopLevelId(Buffer.from('"text":"a \\"id\\":7}"}'))).toBeUndefined();
  });
});
