import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { CLI, FIXTURES, tempDir } from '../helpers/cli.js';

const POLICY = join(FIXTURES, 'sdk-session-policy.yaml');

/** A client written with the reference SDK, talking to the SDK agent through the real broker process. */
async function session(prompt: string, onPermission: (params: acp.RequestPermissionRequest, cancel: () => Promise<void>) => Promise<acp.RequestPermissionResponse>, dir = tempDir()) {
  const audit = join(dir, 'audit.jsonl');
  const child = spawn(process.execPath, [CLI, 'run', '--policy', POLICY, '--audit', audit, '--', process.execPath, join(FIXTURES, 'sdk-agent.mjs')], {
    stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ACP_BROKER_HOME: dir },
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const texts: string[] = [];
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  let sessionId = '';
  let agentContext: { notify: (method: string, params: unknown) => Promise<void> } | undefined;
  const result = await acp.client({ name: 'sdk-test-client' })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissionRequests.push(params);
      return onPermission(params, () => agentContext!.notify(acp.methods.agent.session.cancel, { sessionId }));
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === 'agent_message_chunk' && params.update.content.type === 'text') texts.push(params.update.content.text);
    })
    .connectWith(stream, async (agent) => {
      agentContext = agent as unknown as typeof agentContext;
      const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
      expect(init.agentInfo?.name).toBe('sdk-test-agent');
      const s = await agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] });
      sessionId = s.sessionId;
      return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: prompt }] });
    });
  child.stdin.end();
  const code = await exited;
  const events = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { decision: string; command?: string; outcome: string });
  return { result, texts, permissionRequests, code, events };
}

describe('a full session between reference-SDK client and agent, through the broker', () => {
  it('decides by policy, escalates the undecided request to the client, and completes the turn', async () => {
    const { result, texts, permissionRequests, code, events } = await session('npm test\ngit push --force origin main\nmake deploy', async (params) => {
      const allow = params.options.find((o) => o.kind === 'allow_once')!;
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    });
    expect(result.stopReason).toBe('end_turn');
    expect(texts.join('')).toBe('npm test => allow-once\ngit push --force origin main => reject\nmake deploy => allow-once');
    expect(permissionRequests.map((p) => p.toolCall.title)).toEqual(['make deploy']);
    expect(events.map((e) => [e.command, e.decision, e.outcome])).toEqual([
      ['npm test', 'allow', 'allowed'], ['git push --force origin main', 'deny', 'denied'], ['make deploy', 'ask', 'escalated'],
      ['make deploy', 'allow', 'allowed'],
    ]);
    expect(code).toBe(0);
  });

  it('remembers "always allow" across broker processes: the next session is not asked again', async () => {
    const home = tempDir();
    const first = await session('make deploy', async (params) => {
      // The agent's own allow_always is replaced by the broker's, whose name says what it covers.
      expect(params.options.map((o) => o.kind)).toEqual(['allow_once', 'reject_once', 'allow_always', 'reject_always']);
      const always = params.options.find((o) => o.kind === 'allow_always')!;
      expect(always.name).toMatch(/^Always allow `make deploy` in /);
      return { outcome: { outcome: 'selected', optionId: always.optionId } };
    }, home);
    // The agent received its one-shot option, never its "always" one.
    expect(first.texts.join('')).toBe('make deploy => allow-once');
    const second = await session('make deploy', async () => { throw new Error('must not be asked again'); }, home);
    expect(second.permissionRequests).toEqual([]);
    expect(second.texts.join('')).toBe('make deploy => allow-once');
    expect(second.events.at(-1)).toMatchObject({ decision: 'allow', source: { type: 'grant' } });
  });

  it('cancels: session/cancel reaches the agent and the escalated request ends cancelled', async () => {
    const { result, texts } = await session('npm test\nmake deploy\nnpm test', async (_params, cancel) => {
      await cancel();
      return { outcome: { outcome: 'cancelled' } };
    });
    expect(result.stopReason).toBe('cancelled');
    expect(texts.join('')).toBe('npm test => allow-once\nmake deploy => cancelled');
  });
});
