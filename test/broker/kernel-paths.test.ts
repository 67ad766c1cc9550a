import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realpathCanonicalizer } from '../../src/platform/canonicalize.js';
import { CLAUDE_OPTIONS, harness, policyFrom } from '../helpers/harness.js';

/**
 * Edit requests of each agent shape, and fs/write_text_file, through real symlinks: the session's
 * workspace and home are reached through links, and links inside the workspace lead out of it.
 */
let root: string;
const at = (...parts: string[]) => join(root, ...parts);
let WS: string;
const SID = 'sess-paths';

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'broker-paths-')));
  for (const dir of ['realhome/.ssh/sub', 'realws/src', 'realws/.git/hooks']) mkdirSync(at(dir), { recursive: true });
  writeFileSync(at('realws/src/a.ts'), '');
  symlinkSync(at('realhome'), at('homelink'));
  symlinkSync(at('realws'), at('wslink'));
  symlinkSync(at('realhome/.ssh/authorized_keys'), at('realws/src/k')); // dangling
  symlinkSync(at('realhome/.ssh/sub'), at('realws/src/sub'));
  symlinkSync('../.git/hooks', at('realws/src/h'));
  WS = at('wslink');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const POLICY = `
version: 1
default: ask
rules:
  - id: ssh
    decision: deny
    reason: keys stay private
    match: { paths: ["~/.ssh/**"] }
  - id: hooks
    decision: deny
    match: { access: [write, delete], paths: ["\${workspace}/.git/hooks/**"] }
  - id: edits-in-src
    decision: allow
    match: { kind: edit, paths: ["\${workspace}/src/**"] }
`;

async function setup() {
  const h = await harness(await policyFrom(POLICY), { home: at('homelink'), workspace: WS, canonicalize: realpathCanonicalizer() });
  h.client({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
  h.agent({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: 'test-agent', version: '1' } } });
  h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: WS, mcpServers: [] } });
  h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: SID } });
  return h;
}

let nextId = 500;
async function answerTo(toolCall: Record<string, unknown>, options: object[] = CLAUDE_OPTIONS) {
  const h = await setup();
  const id = nextId++;
  h.agent({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: SID, toolCall: { toolCallId: `call-${id}`, ...toolCall }, options } });
  return h.answers().get(id);
}
const selected = (optionId: string) => ({ outcome: { outcome: 'selected', optionId } });

const claudeEdit = (path: string) => ({ kind: 'edit', rawInput: { file_path: path, content: 'x\n' }, title: `Write ${path}` });
const codexEdit = (path: string) => ({
  kind: 'edit', status: 'pending', title: `Edit ${path}`, content: [{ type: 'diff', path, newText: 'x\n' }], locations: [{ path }],
  rawInput: { call_id: 'c', changes: { [path]: { type: 'add', content: 'x\n' } } },
});
const geminiEdit = (path: string) => ({
  status: 'pending', title: 'Writing to file', kind: 'edit', locations: [{ path }],
  content: [{ type: 'diff', path, oldText: '', newText: 'x\n', _meta: { kind: 'add' } }],
});
const CODEX_OPTIONS = [{ optionId: 'approved', name: 'Yes', kind: 'allow_once' }, { optionId: 'abort', name: 'No', kind: 'reject_once' }];
const GEMINI_OPTIONS = [{ optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' }, { optionId: 'cancel', name: 'Reject', kind: 'reject_once' }];

describe('edit requests through symlinks', () => {
  it.each([
    ['claude', claudeEdit, CLAUDE_OPTIONS, 'allow', 'reject'],
    ['codex', codexEdit, CODEX_OPTIONS, 'approved', 'abort'],
    ['gemini', geminiEdit, GEMINI_OPTIONS, 'proceed_once', 'cancel'],
  ] as const)('%s: judged where the write lands', async (_agent, edit, options, allow, reject) => {
    // Inside the workspace, named through the workspace link or canonically.
    expect(await answerTo(edit(`${WS}/src/a.ts`), options)).toEqual(selected(allow));
    expect(await answerTo(edit(at('realws/src/new.ts')), options)).toEqual(selected(allow));
    // A dangling link to ~/.ssh/authorized_keys.
    expect(await answerTo(edit(`${WS}/src/k`), options)).toEqual(selected(reject));
    // `..` after a link: next to the link's target (~/.ssh), not in src/.
    expect(await answerTo(edit(`${WS}/src/sub/../authorized_keys`), options)).toEqual(selected(reject));
    // A relative link into .git/hooks.
    expect(await answerTo(edit(`${WS}/src/h/pre-commit`), options)).toEqual(selected(reject));
  });
});

describe('fs/write_text_file through symlinks', () => {
  it('refuses writes that land in ~/.ssh or .git/hooks, passes the others', async () => {
    const h = await setup();
    const write = (id: number, path: string) => ({ jsonrpc: '2.0', id, method: 'fs/write_text_file', params: { sessionId: SID, path, content: 'x' } });
    h.agent(write(61, `${WS}/src/k`));
    h.agent(write(62, `${WS}/src/sub/../id_rsa`));
    h.agent(write(63, `${WS}/src/h/post-checkout`));
    for (const id of [61, 62, 63]) expect((h.answers().get(id) as { error?: unknown }).error, String(id)).toBeDefined();
    const ok = write(64, `${WS}/src/a.ts`);
    h.agent(ok);
    expect(h.toClient.at(-1)).toBe(`${JSON.stringify(ok)}\n`);
  });
});
