/**
 * claude's Bash tool keeps its shell between calls: a `cd` in one allowed call moves where the next
 * runs. Shapes from test/fixtures/captures/claude-code-acp__shell__*.jsonl.
 */
import { describe, expect, it } from 'vitest';
import { CLAUDE_OPTIONS, harness, policyFrom, openSession } from '../helpers/harness.js';

const WS = '/home/dev/project';
const SID = 'sess-1';

const POLICY = `
version: 1
default: ask
non_interactive: deny
rules:
  - id: protected-out
    decision: deny
    reason: sub/out.txt is protected
    match: { paths: ["\${workspace}/sub/out.txt"] }
  - id: hooks
    decision: deny
    reason: hooks run code
    match: { paths: ["**/.git/hooks/**"] }
  - id: no-rm
    decision: deny
    match: { command: ["rm"] }
  - id: commands
    decision: allow
    match: { kind: execute, command: ["echo", "git status", "true", "false", "exit"] }
  - id: workspace-writes
    decision: allow
    match: { paths: ["\${workspace}/**"] }
`;

async function session(agentName: string, options: { nonInteractive?: boolean } = {}) {
  const h = await harness(await policyFrom(POLICY), { nonInteractive: options.nonInteractive ?? true });
  openSession(h, agentName, WS, SID, '0.16.2');
  let n = 0;
  const update = (update: Record<string, unknown>) => h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SID, update } });
  return {
    h, update,
    /** claude's announcement, then its permission request; returns the request id. */
    request(command: string, tool = 'Bash') {
      const toolCallId = `toolu_${++n}`;
      const meta = { claudeCode: { toolName: tool } };
      update({ _meta: meta, toolCallId, sessionUpdate: 'tool_call', rawInput: {}, status: 'pending', title: 'Terminal', kind: 'execute', content: [] });
      update({ _meta: meta, toolCallId, sessionUpdate: 'tool_call', rawInput: { command, description: 'run' }, status: 'pending', title: `\`${command}\``, kind: 'execute', content: [] });
      const id = 100 + n;
      h.agent({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: SID, options: CLAUDE_OPTIONS, toolCall: { toolCallId, rawInput: { command, description: 'run' }, title: `\`${command}\`` } } });
      return { id, toolCallId };
    },
    finish(toolCallId: string, status: 'completed' | 'failed') {
      update({ _meta: { claudeCode: { toolName: 'Bash' } }, toolCallId, sessionUpdate: 'tool_call_update', status, rawOutput: '' });
    },
    /** Ask and let it run to `status`; returns how the broker judged it. */
    run(command: string, status: 'completed' | 'failed' = 'completed') {
      const { id, toolCallId } = this.request(command);
      const judged = this.judged(id);
      this.finish(toolCallId, status);
      return judged;
    },
    judged(id: number) {
      const answer = h.answers().get(id) as { outcome: { optionId?: string } } | undefined;
      const source = h.audit.at(-1)!.source as { type: string; ruleId?: string };
      return { optionId: answer?.outcome.optionId, by: source.type === 'rule' ? source.ruleId : source.type, reasons: h.audit.at(-1)!.unresolvable ?? [] };
    },
  };
}

const CLAUDE = '@zed-industries/claude-code-acp';

describe('claude-code-acp: the Bash shell keeps its directory between calls', () => {
  it('`cd .git && git status`, then `echo x >> hooks/pre-commit` in the next call meets the hooks rule', async () => {
    const s = await session(CLAUDE);
    expect(s.run('cd .git && git status')).toMatchObject({ optionId: 'allow', by: 'commands' });
    expect(s.run('echo x >> hooks/pre-commit')).toMatchObject({ optionId: 'reject', by: 'hooks' });
  });

  it('`echo hello > out.txt` after a call that moved to sub/ is denied; in the workspace it is allowed', async () => {
    const s = await session(CLAUDE);
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'allow' });
    s.run('cd sub && echo moved');
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'reject', by: 'protected-out' });
    // claude records where its shell is only once the whole line ran: the shell may also have stayed in sub/.
    s.run(`cd ${WS} && true`);
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'reject', by: 'protected-out' });
  });

  it('claude may have put the shell back into the project: a call after a cd is judged from both', async () => {
    const s = await session(CLAUDE);
    s.run('cd sub && true');
    // From sub/ this writes sub/sub/out.txt; from the project, the protected sub/out.txt.
    expect(s.run('echo hello > sub/out.txt')).toMatchObject({ optionId: 'reject', by: 'protected-out' });
    // And after `cd ..` from either, the shell may be in the project or above it.
    s.run('cd .. && true');
    const next = s.request('echo hello > out.txt');
    expect(s.judged(next.id)).toMatchObject({ optionId: 'reject' });
    expect(s.h.audit.at(-1)!.items!.map((i) => i.item)).toEqual(expect.arrayContaining([`write ${WS}/out.txt`, 'write /home/dev/out.txt', `write ${WS}/sub/out.txt`]));
  });

  it('a line that ends itself before claude records the directory may leave the shell where it was', async () => {
    const s = await session(CLAUDE);
    s.run('cd sub && true');
    expect(s.run(`cd ${WS}/other; exit 0`)).toMatchObject({ optionId: 'allow' });
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'reject', by: 'protected-out' });
  });

  it('a denied call did not run: the shell stays', async () => {
    const s = await session(CLAUDE);
    expect(s.run('cd sub && rm -f stale', 'failed')).toMatchObject({ optionId: 'reject', by: 'no-rm' });
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'allow' });
  });

  it('a cd inside a subshell or a pipeline part does not move the shell', async () => {
    const s = await session(CLAUDE);
    s.run('(cd sub && true)');
    s.run('cd sub | true');
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'allow' });
  });

  it('an allowed call that failed after moving leaves the directory unknown: relative paths are unresolvable', async () => {
    const s = await session(CLAUDE);
    s.run('cd sub && false', 'failed');
    const next = s.run('echo hello > out.txt');
    expect(next).toMatchObject({ optionId: 'reject', by: 'fallback' });
    expect(next.reasons.join('\n')).toContain('working directory is not known');
    // A line that starts from an absolute cd is known again, and so is the shell after it.
    expect(s.run(`cd ${WS}/sub && echo hello > out.txt`)).toMatchObject({ optionId: 'reject', by: 'protected-out' });
    expect(s.run(`cd ${WS} && true`)).toMatchObject({ optionId: 'allow' });
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'allow' });
  });

  it('a failed call that did not move the shell leaves it where it was', async () => {
    const s = await session(CLAUDE);
    s.run('cd sub && true');
    s.run('false', 'failed');
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'reject', by: 'protected-out' });
  });

  it('a directory not known statically makes it unknown; one outside the workspace is one more candidate', async () => {
    const dynamic = await session(CLAUDE, { nonInteractive: false });
    const first = dynamic.request('cd "$(echo sub)" && true');
    dynamic.h.client({ jsonrpc: '2.0', id: first.id, result: { outcome: { outcome: 'selected', optionId: 'allow' } } });
    dynamic.finish(first.toolCallId, 'completed');
    const next = dynamic.request('echo hello > out.txt');
    expect(dynamic.h.audit.at(-1)).toMatchObject({ decision: 'ask' });
    expect(dynamic.judged(next.id).reasons.join('\n')).toContain('working directory is not known');

    const outside = await session(CLAUDE);
    outside.run('cd /tmp && true');
    expect(outside.run('echo hello > out.txt')).toMatchObject({ optionId: 'reject', by: 'fallback' });
    expect(outside.h.audit.at(-1)!.items!.map((i) => i.item)).toEqual(expect.arrayContaining(['write /tmp/out.txt', `write ${WS}/out.txt`]));
  });

  it('a human allowing an escalated cd moves the shell; a human rejecting it does not', async () => {
    const s = await session(CLAUDE, { nonInteractive: false });
    const rejected = s.request('cd sub && touch x');
    s.h.client({ jsonrpc: '2.0', id: rejected.id, result: { outcome: { outcome: 'selected', optionId: 'reject' } } });
    s.finish(rejected.toolCallId, 'failed');
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'allow' });
    const allowed = s.request('cd sub && touch x');
    s.h.client({ jsonrpc: '2.0', id: allowed.id, result: { outcome: { outcome: 'selected', optionId: 'allow' } } });
    s.finish(allowed.toolCallId, 'completed');
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'reject', by: 'protected-out' });
  });

  it('while an allowed call that moves the shell still runs, the next call cannot know where it starts', async () => {
    const s = await session(CLAUDE);
    const first = s.request('cd sub && echo moving');
    expect(s.judged(first.id)).toMatchObject({ optionId: 'allow' });
    const second = s.request('echo hello > out.txt');
    expect(s.judged(second.id)).toMatchObject({ optionId: 'reject', by: 'fallback' });
  });

  it('a call claude ran without asking moves the shell too', async () => {
    const s = await session(CLAUDE);
    s.update({ _meta: { claudeCode: { toolName: 'Bash' } }, toolCallId: 'silent', sessionUpdate: 'tool_call', rawInput: { command: 'cd sub' }, status: 'pending', title: '`cd sub`', kind: 'execute' });
    s.finish('silent', 'completed');
    expect(s.run('echo hello > out.txt')).toMatchObject({ optionId: 'reject', by: 'protected-out' });
  });

  it('through the client\'s terminal (mcp__acp__Bash) every command starts afresh in the workspace', async () => {
    const s = await session(CLAUDE);
    const first = s.request('cd sub && true', 'mcp__acp__Bash');
    s.finish(first.toolCallId, 'completed');
    const next = s.request('echo hello > out.txt', 'mcp__acp__Bash');
    expect(s.judged(next.id)).toMatchObject({ optionId: 'allow' });
  });
});

describe('agents whose shell starts afresh for every command', () => {
  for (const agent of ['codex-acp', 'gemini-cli', 'qwen-code']) {
    it(`${agent}: a cd in one call does not move the next`, async () => {
      const s = await session(agent);
      const moved = s.h;
      moved.agent({ jsonrpc: '2.0', id: 50, method: 'session/request_permission', params: { sessionId: SID, options: CLAUDE_OPTIONS, toolCall: { toolCallId: 'a', kind: 'execute', rawInput: { command: 'cd sub && true', cwd: WS } } } });
      s.update({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'completed' });
      moved.agent({ jsonrpc: '2.0', id: 51, method: 'session/request_permission', params: { sessionId: SID, options: CLAUDE_OPTIONS, toolCall: { toolCallId: 'b', kind: 'execute', rawInput: { command: 'echo hello > out.txt', cwd: WS } } } });
      expect(s.judged(51)).toMatchObject({ optionId: 'allow' });
    });
  }
});
