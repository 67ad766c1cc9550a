import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, FIXTURES, ROOT, tempDir } from '../helpers/cli.js';

// `check -- COMMAND` and `check --kind K --path P`: the request built in each agent's shape is
// decided exactly as the same request given as a file, with the documented exit codes.

const home = tempDir('acp-broker-check-');
const WS = '/home/dev/project';

function check(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, 'check', ...args], { cwd: ROOT, encoding: 'utf8', input, env: { ...process.env, ACP_BROKER_HOME: home, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const policy = join(tempDir('acp-broker-check-policy-'), 'policy.yaml');
writeFileSync(policy, `version: 1
default: ask
non_interactive: deny
rules:
  - id: protected-out
    decision: deny
    reason: out.txt is protected
    match: { paths: ["\${workspace}/out.txt"] }
  - id: commands
    decision: allow
    match: { kind: execute, command: ["echo", "git status"] }
  - id: notes
    decision: allow
    match: { kind: edit, paths: ["\${workspace}/notes.txt"] }
`);

describe('check -- COMMAND', () => {
  it('explains a denied command, exit 1 (the bundled default)', () => {
    const r = check(['--cwd', WS, '--', 'git', 'push', '--force', 'origin', 'main']);
    expect(r.stdout).toBe(`decision: DENY
reason:   rule destructive denies git push --force origin main: Irreversible operations are never run by an agent
kind:     execute
workspace: ${WS}
command:  git push --force origin main
items:
  deny      git push --force origin main
            rule destructive (deny) [user] policies/default.yaml:141:5
agent receives: selected reject (reject_once) (interactive); selected reject (reject_once) (non-interactive)
`);
    expect([r.code, r.stderr]).toEqual([1, '']);
  });

  it('allow is exit 0, ask is exit 3', () => {
    expect(check(['--cwd', WS, '--', 'npm', 'test']).code).toBe(0);
    const ask = check(['--cwd', WS, '--', 'curl', 'https://example.com']);
    expect(ask.code).toBe(3);
    expect(ask.stdout).toMatch(/^decision: ASK\n/);
  });

  it('one word is a shell line; several words are quoted as given', () => {
    const line = check(['--policy', policy, '--cwd', WS, '--', 'git status && echo hi > out.txt']);
    expect(line.code).toBe(1);
    expect(line.stdout).toContain('command:  git status && echo hi > out.txt\n');
    // The `>` is an argument of echo here, not a redirection.
    const words = check(['--policy', policy, '--cwd', WS, '--', 'echo', 'hi', '>', 'out.txt']);
    expect(words.stdout).toContain("command:  echo hi '>' out.txt\n");
    expect(words.code).toBe(0);
  });

  it('--json prints the same report as for a request file', () => {
    const r = check(['--policy', policy, '--cwd', WS, '--json', '--', 'echo hello > out.txt']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'deny', source: { type: 'rule', ruleId: 'protected-out' }, workspace: WS, facts: { kind: 'execute', command: 'echo hello > out.txt' } });
  });
});

describe('check --kind K --path P', () => {
  it('read of a secret: deny, exit 1; an edit the policy leaves open: ask, exit 3', () => {
    const read = check(['--cwd', WS, '--kind', 'read', '--path', '.env']);
    expect(read.stdout.split('\n').slice(0, 3)).toEqual(['decision: DENY', `reason:   rule secrets denies read ${WS}/.env: Credentials and keys stay private`, 'kind:     read']);
    expect(read.code).toBe(1);
    const edit = check(['--policy', policy, '--cwd', WS, '--kind', 'edit', '--path', 'src/a.ts']);
    expect(edit.stdout.split('\n').slice(0, 2)).toEqual(['decision: ASK', `reason:   no rule decides write ${WS}/src/a.ts; policy default is ask`]);
    expect(edit.code).toBe(3);
  });

  it('move takes the source and the destination; fetch takes --url', () => {
    const move = check(['--policy', policy, '--cwd', WS, '--json', '--kind', 'move', '--path', 'a.txt', '--path', 'out.txt']);
    expect(JSON.parse(move.stdout)).toMatchObject({ decision: 'deny', facts: { kind: 'move' } });
    const fetch = check(['--policy', policy, '--json', '--kind', 'fetch', '--url', 'https://example.com/x']);
    expect(JSON.parse(fetch.stdout)).toMatchObject({ decision: 'ask', facts: { kind: 'fetch' }, items: [{ item: 'https://example.com/x' }] });
    expect(fetch.code).toBe(3);
  });
});

/** A captured request, merged with the tool_call updates before it (claude sends kind and tool name only there). */
function capturedRequest(name: string): Record<string, unknown> {
  const lines = readFileSync(join(FIXTURES, 'captures', `${name}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l).msg);
  const request = lines.find((m) => m.method === 'session/request_permission');
  let toolCall: Record<string, unknown> = {};
  for (const m of lines) {
    if (m === request) break;
    const update = m.params?.update;
    if (update?.toolCallId === request.params.toolCall.toolCallId) {
      const { sessionUpdate: _, ...fields } = update;
      toolCall = { ...toolCall, ...Object.fromEntries(Object.entries(fields).filter(([k, v]) => !(k === 'rawInput' && Object.keys(v as object).length === 0))) };
    }
  }
  return { ...request.params, toolCall: { ...toolCall, ...request.params.toolCall } };
}

describe('--agent builds the request as that agent sends it', () => {
  const cases = [
    ['claude', 'claude-code-acp__shell__allow_once', ['--', 'echo hello > out.txt']],
    ['gemini', 'gemini-cli__shell__allow_once', ['--', 'echo hello > out.txt']],
    ['codex', 'codex-acp__shell__allow_once', ['--', 'echo hello > out.txt']],
    ['claude', 'claude-code-acp__edit__allow_once', ['--kind', 'edit', '--path', 'notes.txt']],
    ['gemini', 'gemini-cli__edit__allow_once', ['--kind', 'edit', '--path', 'notes.txt']],
    ['codex', 'codex-acp__edit__allow_once', ['--kind', 'edit', '--path', `${WS}/notes.txt`]],
  ] as const;
  it.each(cases)('%s: %s decides as the captured request', (agent, capture, what) => {
    const file = join(home, `${capture}.json`);
    writeFileSync(file, JSON.stringify(capturedRequest(capture)));
    const fromFile = check(['--policy', policy, '--cwd', WS, '--json', file]);
    const built = check(['--policy', policy, '--cwd', WS, '--json', '--agent', agent, ...what]);
    const { facts: f1, ...r1 } = JSON.parse(fromFile.stdout);
    const { facts: f2, ...r2 } = JSON.parse(built.stdout);
    expect(r2).toEqual(r1);
    expect({ ...f2, title: null }).toEqual({ ...f1, title: null });
    expect(built.code).toBe(fromFile.code);
    expect(built.code).toBe(what[0] === '--' ? 1 : 0);
  });

  it('an agent that never sends such a request is refused, not guessed', () => {
    const r = check(['--agent', 'gemini', '--kind', 'read', '--path', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('acp-broker: gemini-cli sends no read permission request (it does not ask for that, or runs a shell command): try check --agent gemini -- COMMAND');
  });
});

describe('usage mistakes: one line, the synopsis, exit 2', () => {
  const SYNOPSIS = `usage: acp-broker check [--policy FILE]... [--cwd DIR] [--agent AGENT] [--json] -- COMMAND [ARGS...]
       acp-broker check [--policy FILE]... [--cwd DIR] [--agent AGENT] [--json] --kind read|edit|delete|move --path PATH...
       acp-broker check [--policy FILE]... [--agent AGENT] [--json] --kind fetch --url URL
       acp-broker check [--policy FILE]... [--cwd DIR] [--json] REQUEST.json|-
(\`acp-broker help check\` shows its options and examples)
`;
  it.each([
    [[], 'check takes -- COMMAND, --kind KIND --path PATH, or one REQUEST.json (- for stdin)'],
    [['--kind', 'read'], '--kind read needs --path PATH'],
    [['--kind', 'bogus', '--path', 'x'], '--kind takes execute, read, edit, delete, move, fetch, not `bogus`'],
    [['--kind', 'move', '--path', 'a'], '--kind move takes two --path: the source, then the destination'],
    [['--path', 'a'], '--path and --url need --kind (read, edit, delete, move, fetch)'],
    [['--kind', 'read', '--', 'ls'], 'a command after -- is an execute call; --kind read takes --path instead'],
    [['--agent', 'cursor', '--', 'ls'], '--agent takes claude, gemini, codex, not `cursor`'],
    [['req.json', '--', 'ls'], 'check takes either a request file or -- COMMAND / --kind, not both (got `req.json`)'],
    [['--agent', 'codex', 'req.json'], "--agent builds the request from -- COMMAND or --kind/--path; a REQUEST.json is already in its agent's shape"],
  ])('%j', (args, message) => {
    const r = check(args as string[]);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `acp-broker: ${message}\n${SYNOPSIS}`]);
  });

  it('the REQUEST.json and stdin forms still work', () => {
    expect(check(['--cwd', WS, 'examples/requests/claude-force-push.json']).code).toBe(1);
    expect(check(['--cwd', WS, '-'], readFileSync(join(ROOT, 'examples/requests/claude-force-push.json'), 'utf8')).code).toBe(1);
  });
});
