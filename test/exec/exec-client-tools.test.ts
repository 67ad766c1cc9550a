import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANCEL_GRACE_MS } from '../../src/exec/run-control.js';
import { FIXTURES, spawnBroker, tempDir } from '../helpers/cli.js';

// `acp-broker exec` offering fs and terminal to an agent that uses them (client-tools-agent.mjs):
// every call passes the broker's policy first, then exec carries it out for real.
const AGENT = join(FIXTURES, 'client-tools-agent.mjs');

const POLICY = `version: 1
default: deny
non_interactive: deny
rules:
  - id: work-in-allowed
    decision: allow
    match: { kind: [read, edit], paths: ["\${workspace}/allowed/**"] }
  - id: protected-files
    decision: deny
    reason: protected files stay as they are
    match: { kind: [read, edit], paths: ["\${workspace}/protected/**"] }
  - id: harmless-commands
    decision: allow
    match: { kind: execute, command: ["echo", "yes", "head", "printf"] }
  - id: no-removal
    decision: deny
    reason: nothing is removed in CI
    match: { kind: execute, command: ["rm"] }
`;

interface Step { op: string; ok: boolean; result?: Record<string, unknown>; error?: { code: number; message: string; data?: { ruleId?: string | null } } }

interface Run { code: number | null; stdout: string; stderr: string; steps: Step[]; workspace: string; pid: number; durationMs: number }

function setup(policy = POLICY) {
  const root = tempDir('acp-exec-tools-');
  const workspace = join(root, 'project');
  mkdirSync(join(workspace, 'protected'), { recursive: true });
  writeFileSync(join(workspace, 'protected', 'keep.txt'), 'original\n');
  const policyFile = join(root, 'policy.yaml');
  writeFileSync(policyFile, policy);
  return { root, workspace, policyFile, home: join(root, 'home') };
}

async function exec(steps: object[] | string, options: { extra?: string[]; env?: NodeJS.ProcessEnv; agent?: string[]; stdin?: string; policy?: string } = {}): Promise<Run & { root: string }> {
  const s = setup(options.policy);
  const prompt = typeof steps === 'string' ? steps : steps.map((step) => JSON.stringify(step)).join('\n');
  const promptArgs = options.stdin !== undefined ? ['--prompt', '-'] : ['--prompt', prompt];
  const started = Date.now();
  const run = spawnBroker(['exec', '--policy', s.policyFile, '--cwd', s.workspace, ...promptArgs, ...(options.extra ?? []), '--', ...(options.agent ?? [process.execPath, AGENT])],
    { ACP_BROKER_HOME: s.home, ...options.env });
  run.child.stdin.end(options.stdin ?? '');
  const { code } = await run.exit;
  const stdout = run.stdout().toString();
  const steps_ = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Step);
  return { code, stdout, stderr: run.stderr(), steps: steps_, workspace: s.workspace, pid: run.child.pid!, durationMs: Date.now() - started, root: s.root };
}

describe('exec carries out the fs and terminal calls the policy lets through', () => {
  it('offers fs and terminal in initialize', async () => {
    const record = join(tempDir(), 'record.jsonl');
    const run = await exec([], { env: { RECORD_TO: record } });
    expect(run.code).toBe(0);
    const init = JSON.parse(readFileSync(record, 'utf8').split('\n')[0]!) as { params: { clientCapabilities: unknown } };
    expect(init.params.clientCapabilities).toMatchObject({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
  });

  it('an allowed write writes the file (parents created); a denied one leaves it untouched, the rule named', async () => {
    const real = await execIn((w) => [
      { op: 'write', path: `${w}/allowed/deep/new.txt`, content: 'written by the agent\n' },
      { op: 'write', path: `${w}/protected/keep.txt`, content: 'overwritten!\n' },
      { op: 'read', path: `${w}/allowed/deep/new.txt`, line: 1, limit: 1 },
      { op: 'read', path: `${w}/protected/keep.txt` },
    ]);
    expect(real.code).toBe(0);
    expect(readFileSync(join(real.workspace, 'allowed', 'deep', 'new.txt'), 'utf8')).toBe('written by the agent\n');
    expect(readFileSync(join(real.workspace, 'protected', 'keep.txt'), 'utf8')).toBe('original\n');
    expect(real.steps.map((st) => st.ok)).toEqual([true, false, true, false]);
    expect(real.steps[1]!.error).toMatchObject({ code: -32001, message: expect.stringContaining('protected files stay as they are') });
    expect(real.steps[1]!.error!.message).toContain('fs/write_text_file denied');
    expect(real.steps[1]!.error!.data?.ruleId).toBe('protected-files');
    expect(real.steps[2]!.result).toEqual({ content: 'written by the agent\n' });
    expect(real.stderr).toMatch(/DENY .*\[rule protected-files\]/);
  });

  it('an allowed terminal runs (10 MB cut at the byte limit); a denied one never runs', async () => {
    const run = await execIn((w) => [
      { op: 'terminal', command: 'echo hello from a terminal' },
      { op: 'terminal', command: 'yes | head -c 10000000', outputByteLimit: 4096 },
      { op: 'terminal', command: `rm -rf ${w}/protected` },
      { op: 'terminal', command: 'printf', args: ['%s', 'no shell: $HOME'] },
    ]);
    expect(run.code).toBe(0);
    expect(run.steps[0]).toMatchObject({ ok: true, result: { output: 'hello from a terminal\n', truncated: false, exit: { exitCode: 0, signal: null } } });
    expect(run.steps[1]).toMatchObject({ ok: true, result: { truncated: true, outputLength: 4096 } });
    expect(run.steps[2]).toMatchObject({ ok: false, error: { code: -32001, message: expect.stringContaining('nothing is removed in CI') } });
    expect(existsSync(join(run.workspace, 'protected', 'keep.txt'))).toBe(true);
    expect(run.steps[3]).toMatchObject({ ok: true, result: { output: 'no shell: $HOME' } });
  });

  it('a relative path never reaches the file system: refused with a JSON-RPC error', async () => {
    const run = await execIn(() => [{ op: 'write', path: 'allowed/relative.txt', content: 'x' }]);
    expect(run.steps[0]).toMatchObject({ ok: false, error: { message: expect.stringContaining('not absolute') } });
    expect(readdirSync(run.workspace).sort()).toEqual(['protected']);
  });

  it('terminals still running when the turn ends are ended with exec: nothing left in the process table', async () => {
    const pidFile = join(tempDir(), 'pid');
    const run = await execIn(() => [
      { op: 'terminal', command: `echo $$ > ${pidFile}; sleep 300 & echo $! >> ${pidFile}; wait`, wait: false },
      { op: 'terminal', command: `until [ "$(wc -l < ${pidFile})" -ge 2 ] 2>/dev/null; do sleep 0.05; done` },
    ], { policy: 'version: 1\ndefault: allow\n' });
    expect(run.code).toBe(0);
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });
});

describe('exec run control', () => {
  it('--prompt - reads the prompt from stdin', async () => {
    const s = setup();
    mkdirSync(join(s.workspace, 'allowed'));
    writeFileSync(join(s.workspace, 'allowed', 'in.txt'), 'from stdin prompt\n');
    const run = spawnBroker(['exec', '--policy', s.policyFile, '--cwd', s.workspace, '--prompt', '-', '--', process.execPath, AGENT], { ACP_BROKER_HOME: s.home });
    run.child.stdin.end(`${JSON.stringify({ op: 'read', path: join(s.workspace, 'allowed', 'in.txt') })}\n`);
    expect((await run.exit).code).toBe(0);
    expect(run.stdout().toString()).toContain('"content":"from stdin prompt\\n"');
  });

  it('--mcp-config: the map shape reaches session/new as ACP McpServers; a bad file is one line, exit 2, no agent', async () => {
    const dir = tempDir();
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {
      files: { command: '/usr/bin/mcp-files', args: ['--root', '/tmp'], env: { LOG: '1' } },
      web: { type: 'http', url: 'https://mcp.example/x', headers: { 'X-Team': 'ci' } },
    } }));
    const record = join(dir, 'record.jsonl');
    const run = await exec([], { extra: ['--mcp-config', config], env: { RECORD_TO: record } });
    expect(run.code).toBe(0);
    const sessionNew = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { what: string; params: { mcpServers: unknown } })
      .find((r) => r.what === 'session/new')!;
    expect(sessionNew.params.mcpServers).toEqual([
      { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/tmp'], env: [{ name: 'LOG', value: '1' }] },
      { type: 'http', name: 'web', url: 'https://mcp.example/x', headers: [{ name: 'X-Team', value: 'ci' }] },
    ]);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ mcpServers: { broken: { args: ['x'] } } }));
    const badRecord = join(dir, 'bad-record.jsonl');
    const refused = await exec([], { extra: ['--mcp-config', bad], env: { RECORD_TO: badRecord } });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/--mcp-config .*bad\.json: mcpServers\.broken needs a "command"/);
    expect(existsSync(badRecord)).toBe(false);
  });

  it('an agent that needs authentication: its methods and the variable to set, exit 127', async () => {
    const dir = tempDir();
    // Named like a Claude agent, so the hint is ANTHROPIC_API_KEY (module resolution follows the link).
    const claude = join(dir, 'claude-code-fixture.mjs');
    symlinkSync(AGENT, claude);
    const run = await exec([], { agent: [process.execPath, claude], env: { AUTH_REQUIRED: '1' } });
    expect(run.code).toBe(127);
    expect(run.stderr).toContain('the agent needs authentication');
    expect(run.stderr).toContain('fixture-login (Fixture login: Log in to the fixture service)');
    expect(run.stderr).toContain('Set ANTHROPIC_API_KEY');
    expect(run.stderr).not.toMatch(/"code":-32000/);
  });

  it('--max-duration: an agent that ends the turn on session/cancel is not killed, and the run still times out (124)', async () => {
    const started = Date.now();
    const run = await exec([{ op: 'hang' }], { extra: ['--max-duration', '0.5'] });
    expect(run.code).toBe(124);
    expect(run.stderr).toContain('--max-duration reached: the turn ended cancelled after session/cancel');
    expect(Date.now() - started).toBeLessThan(CANCEL_GRACE_MS);
  });

  it('a --max-duration that is not a positive number is one line, exit 2', async () => {
    const run = await exec([], { extra: ['--max-duration', 'soon'] });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe('acp-broker: --max-duration takes a number of seconds greater than 0, not `soon`');
    expect(run.stderr).toContain('usage: acp-broker exec ');
  });

  it(`--max-duration ends a deaf agent within the ${CANCEL_GRACE_MS / 1000} s grace period: exit 124, nothing left running`, async () => {
    const s = setup();
    const started = Date.now();
    const run = spawnBroker(['exec', '--policy', s.policyFile, '--cwd', s.workspace, '--prompt', 'hello', '--max-duration', '1', '--', process.execPath, AGENT],
      { ACP_BROKER_HOME: s.home, DEAF: '1' });
    run.child.stdin.end();
    const seen = new Set<number>();
    const watch = setInterval(() => { for (const pid of descendants(run.child.pid!)) seen.add(pid); }, 50);
    const { code } = await run.exit;
    clearInterval(watch);
    const elapsed = Date.now() - started;
    expect(code).toBe(124);
    expect(run.stderr()).toContain('--max-duration reached');
    expect(elapsed).toBeLessThan(1000 + CANCEL_GRACE_MS + 4000);
    expect(elapsed).toBeGreaterThan(1000 + CANCEL_GRACE_MS - 500);
    expect(seen.size).toBeGreaterThanOrEqual(2); // the agent and its sleep
    expect([...seen].filter(alive)).toEqual([]);
  }, 30_000);
});

async function execIn(steps: (workspace: string) => object[], options: { policy?: string } = {}) {
  // The workspace is made first so the steps can name absolute paths in it.
  const s = setup(options.policy);
  const prompt = steps(s.workspace).map((step) => JSON.stringify(step)).join('\n');
  const run = spawnBroker(['exec', '--policy', s.policyFile, '--cwd', s.workspace, '--prompt', prompt, '--', process.execPath, AGENT], { ACP_BROKER_HOME: s.home });
  run.child.stdin.end();
  const { code } = await run.exit;
  const stdout = run.stdout().toString();
  return { code, stdout, stderr: run.stderr(), workspace: s.workspace, steps: stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Step) };
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const p = frontier.pop()!;
    for (const [pid, ppid] of parent) if (ppid === p) { found.push(pid); frontier.push(pid); }
  }
  return found;
}
