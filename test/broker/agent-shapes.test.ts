/**
 * Each agent names the directory its shell tool runs a command in its own way (shapes from
 * test/fixtures/captures and the agents' sources): the broker must judge the command there.
 */
import { describe, expect, it } from 'vitest';
import { harness, policyFrom, openSession } from '../helpers/harness.js';

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
  - id: commands
    decision: allow
    match: { kind: execute, command: ["echo", "git status", "true"] }
  - id: workspace-writes
    decision: allow
    match: { paths: ["\${workspace}/**"] }
`;

const GEMINI_OPTIONS = [
  { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
];
const CODEX_OPTIONS = [
  { optionId: 'approved', name: 'Yes, proceed', kind: 'allow_once' },
  { optionId: 'abort', name: 'No, and tell Codex what to do differently', kind: 'reject_once' },
];

async function session(agentName: string) {
  const h = await harness(await policyFrom(POLICY), { nonInteractive: true });
  openSession(h, agentName, WS, SID);
  let nextId = 100;
  return {
    h,
    update(update: Record<string, unknown>) {
      h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SID, update } });
    },
    /** The rule (or fallback) that decided the request, and the option the agent got. */
    ask(toolCall: Record<string, unknown>, options: object[]) {
      const id = nextId++;
      h.agent({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: SID, toolCall, options } });
      const answer = h.answers().get(id) as { outcome: { optionId?: string } };
      const event = h.audit.at(-1)!;
      const source = event.source as { type: string; ruleId?: string };
      return { optionId: answer.outcome.optionId, by: source.type === 'rule' ? source.ruleId : source.type, reasons: event.unresolvable ?? [] };
    },
  };
}

describe('gemini-cli: the directory is only in the explanation `[in DIR] (description)`', () => {
  const request = (toolCallId: string, title: string, explanation: string) => ({
    toolCallId, status: 'pending', title, kind: 'execute', locations: [],
    content: [{ type: 'content', content: { type: 'text', text: explanation } }],
  });

  it('judges `echo hello > out.txt` in sub/ there: denied', async () => {
    const s = await session('gemini-cli');
    expect(s.ask(request('g1', 'echo hello > out.txt', '[in sub] (Write hello to out.txt)'), GEMINI_OPTIONS)).toMatchObject({ optionId: 'cancel', by: 'protected-out' });
    expect(s.ask(request('g2', 'echo hello > out.txt', `[in ${WS}/sub]`), GEMINI_OPTIONS)).toMatchObject({ optionId: 'cancel', by: 'protected-out' });
  });

  it('runs it in the workspace when the explanation names the current directory (the captured shape)', async () => {
    const s = await session('gemini-cli');
    const shape = request('g1', 'echo hello > out.txt', `[current working directory ${WS}] (Write hello to out.txt)`);
    expect(s.ask(shape, GEMINI_OPTIONS)).toMatchObject({ optionId: 'proceed_once', by: 'commands' });
  });

  it('an explanation whose directory has more than one reading leaves relative paths unresolvable', async () => {
    const s = await session('gemini-cli');
    // dir_path `sub] (x` with description `y`, or dir_path `sub` with description `x] (y`.
    const result = s.ask(request('g1', 'echo hello > out.txt', '[in sub] (x] (y)'), GEMINI_OPTIONS);
    expect(result).toMatchObject({ optionId: 'cancel', by: 'fallback' });
    expect(result.reasons.join('\n')).toContain('cannot be read with certainty');
  });

  it('a gemini request that shows no directory at all is not allowed (older versions hid dir_path)', async () => {
    const s = await session('gemini-cli');
    const shape = { toolCallId: 'g1', status: 'pending', title: 'echo hello > out.txt', kind: 'execute', locations: [], content: [] };
    expect(s.ask(shape, GEMINI_OPTIONS)).toMatchObject({ optionId: 'cancel', by: 'fallback' });
  });

  it('keeps the backquotes of a title: bash runs the substitution and then its output', async () => {
    const s = await session('gemini-cli');
    const shape = request('g1', '`echo rm -rf /tmp/x`', `[current working directory ${WS}]`);
    expect(s.ask(shape, GEMINI_OPTIONS)).toMatchObject({ optionId: 'cancel', by: 'fallback' });
    expect(s.h.audit.at(-1)!.unresolvable!.length).toBeGreaterThan(0);
  });
});

describe('codex-acp: rawInput.cwd (exec event) and rawInput.workdir (its shell tools)', () => {
  const exec = (toolCallId: string, cwd: unknown) => ({
    toolCallId, kind: 'execute', status: 'pending', title: 'echo hello > out.txt',
    rawInput: { call_id: toolCallId, command: ['/bin/bash', '-lc', 'echo hello > out.txt'], cwd, parsed_cmd: [{ type: 'unknown', cmd: 'echo hello > out.txt' }] },
  });

  it('an absolute cwd and a relative one (taken against the session cwd) are both honoured', async () => {
    const s = await session('codex-acp');
    expect(s.ask(exec('c1', `${WS}/sub`), CODEX_OPTIONS)).toMatchObject({ optionId: 'abort', by: 'protected-out' });
    expect(s.ask(exec('c2', 'sub'), CODEX_OPTIONS)).toMatchObject({ optionId: 'abort', by: 'protected-out' });
    expect(s.ask(exec('c3', WS), CODEX_OPTIONS)).toMatchObject({ optionId: 'approved', by: 'commands' });
  });

  it('a workdir announced only in an earlier tool_call_update still counts', async () => {
    const s = await session('codex-acp');
    s.update({ sessionUpdate: 'tool_call', toolCallId: 'c1', kind: 'execute', status: 'pending', title: 'echo hello > out.txt', locations: [{ path: `${WS}/sub/out.txt` }] });
    s.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', rawInput: { command: 'echo hello > out.txt', workdir: 'sub' } });
    const request = { toolCallId: 'c1', kind: 'execute', status: 'pending', locations: [], rawInput: { command: 'echo hello > out.txt' } };
    expect(s.ask(request, CODEX_OPTIONS)).toMatchObject({ optionId: 'abort', by: 'protected-out' });
  });

  it('two different directories for one call leave relative paths unresolvable', async () => {
    const s = await session('codex-acp');
    s.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', rawInput: { command: 'echo hello > out.txt', workdir: 'elsewhere' } });
    const result = s.ask(exec('c1', WS), CODEX_OPTIONS);
    expect(result).toMatchObject({ optionId: 'abort', by: 'fallback' });
    expect(result.reasons.join('\n')).toContain('two different working directories');
  });

  it('a cwd that is not a string leaves relative paths unresolvable', async () => {
    const s = await session('codex-acp');
    expect(s.ask(exec('c1', { path: 'sub' }), CODEX_OPTIONS)).toMatchObject({ optionId: 'abort', by: 'fallback' });
  });
});

describe('qwen-code: rawInput.directory', () => {
  const call = (toolCallId: string, directory: string | undefined) => ({
    toolCallId, status: 'pending', kind: 'execute', title: 'Shell: echo hello > out.txt', locations: [],
    rawInput: { command: 'echo hello > out.txt', is_background: false, description: 'Write hello', ...(directory !== undefined ? { directory } : {}) },
    _meta: { toolName: 'run_shell_command' },
  });

  it('judges the command in that directory', async () => {
    const s = await session('qwen-code');
    s.update({ sessionUpdate: 'tool_call', ...call('q1', 'sub') });
    expect(s.ask({ toolCallId: 'q1', ...call('q1', 'sub') }, GEMINI_OPTIONS)).toMatchObject({ optionId: 'cancel', by: 'protected-out' });
    expect(s.ask(call('q2', undefined), GEMINI_OPTIONS)).toMatchObject({ optionId: 'proceed_once', by: 'commands' });
  });

  it('the directory itself is not a path the command writes', async () => {
    const s = await session('qwen-code');
    s.ask({ ...call('q1', 'sub'), rawInput: { command: 'echo hello', directory: 'sub' } }, GEMINI_OPTIONS);
    expect(s.h.audit.at(-1)!.items!.map((i) => i.item)).toEqual(['echo hello']);
  });
});
