import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers/cli.js';
import { command, isAlive, killQuietly, startBroker } from './driver.js';

// Every ordinary mistake: one line on stderr, exit 2, no stack trace, nothing left running; an agent
// that fails at once is reported with its own exit code and its own stderr.

const home = tempDir('acp-broker-mistakes-');
const env = { ...process.env, ACP_BROKER_HOME: home };

/** Runs the CLI with `input` on stdin (closed afterwards unless `holdStdin`), returning code and output. */
function cli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; holdStdin?: boolean } = {}): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: options.env ?? env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stdin.on('error', () => {});
  if (options.input !== undefined) child.stdin.write(options.input);
  // An editor keeps the pipe open: a mistake must still end the broker at once.
  if (!options.holdStdin) child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => {
    child.stdin.destroy();
    resolve({ code, stderr, stdout });
  }));
}

function expectOneLine(result: { code: number | null; stderr: string }, text: string | RegExp): void {
  expect(result.code).toBe(2);
  const [first, ...rest] = result.stderr.trim().split('\n');
  expect(first).toMatch(text);
  // A usage mistake is followed by its command's synopsis (src/cli/help.ts), and nothing else.
  if (rest.length > 0) {
    expect(rest[0]).toMatch(/^usage: acp-broker /);
    expect(rest.slice(1, -1).every((line) => line.startsWith('       acp-broker '))).toBe(true);
    expect(rest.at(-1)).toMatch(/^\(`acp-broker help \w+` shows its options and examples\)$/);
  }
  expect(result.stderr).not.toMatch(/\n\s+at |TypeError|ReferenceError/);
}

describe('ordinary mistakes get one clear line and exit 2', () => {
  // The default policy validated once, so `run` would spawn its agent early: a usage error must still end it all.
  spawnSync(process.execPath, [CLI, 'validate'], { env });

  it('a bad --timeout, with the editor\'s stdin held open', async () => {
    expectOneLine(await cli(['--timeout', 'abc', '--', 'cat'], { holdStdin: true }), /--timeout takes a number of seconds greater than 0, not `abc`/);
  });

  it('a mistyped subcommand is named, with a suggestion', async () => {
    expectOneLine(await cli(['chek', 'request.json']), /unknown command `chek` \(did you mean `check`\?\)/);
  });

  it('check: a missing file, null, malformed JSON, a request without a toolCall', async () => {
    expectOneLine(await cli(['check', join(home, 'no-such.json')]), /cannot read .*no-such\.json: no such file or directory/);
    expectOneLine(await cli(['check', '-'], { input: 'null' }), /expected a session\/request_permission message or its params/);
    expectOneLine(await cli(['check', '-'], { input: '{"method":' }), /-: not JSON/);
    expectOneLine(await cli(['check', '-'], { input: '{"method":"session/request_permission","params":{"sessionId":"s"}}' }), /with a toolCall object/);
  });

  it('exec: a missing --prompt-file, a --cwd that is a file or does not exist', async () => {
    expectOneLine(await cli(['exec', '--prompt-file', join(home, 'nope.md'), '--', 'cat']), /--prompt-file .*nope\.md: no such file or directory/);
    const file = join(home, 'a-file');
    writeFileSync(file, '');
    expectOneLine(await cli(['exec', '--prompt', 'hi', '--cwd', file, '--', 'cat']), /--cwd .*a-file is not a directory/);
    expectOneLine(await cli(['exec', '--prompt', 'hi', '--cwd', join(home, 'missing-dir'), '--', 'cat']), /--cwd .*missing-dir: no such file or directory/);
  });

  it('ACP_BROKER_HOME pointing at a file', async () => {
    const file = join(home, 'home-file');
    writeFileSync(file, '');
    expectOneLine(await cli(['check', '-'], { input: '{}', env: { ...process.env, ACP_BROKER_HOME: file } }), /ACP_BROKER_HOME=.*home-file is not a directory/);
  });

  it('exec: an audit log that cannot be written fails the run before the agent starts', async () => {
    const marker = join(home, 'agent-started');
    const result = await cli(['exec', '--prompt', 'hi', '--audit', '/proc/acp-broker/audit.jsonl', '--', 'sh', '-c', `touch ${marker}`]);
    expectOneLine(result, /cannot write the audit log \/proc\/acp-broker\/audit\.jsonl/);
    expect(existsSync(marker)).toBe(false);
  });

  it('an unreadable policy says so (not "check the path")', () => {
    if (process.getuid?.() === 0) {
      // root reads any file: show the message through another user.
      const file = join(home, 'secret-policy.yaml');
      writeFileSync(file, 'version: 1\nrules: []\n');
      chmodSync(file, 0);
      chmodSync(home, 0o755);
      const result = spawnSync('su', ['nobody', '-s', '/bin/sh', '-c', `ACP_BROKER_HOME=/tmp/acp-broker-nobody-$$ ${process.execPath} ${CLI} validate ${file}`], { encoding: 'utf8' });
      expect(result.stdout + result.stderr).toMatch(/cannot read policy file: permission denied\n\s+hint: the file exists but this user may not read it/);
    }
  });
});

describe('an agent that fails at once', () => {
  it('exits with the agent\'s code and shows the agent\'s stderr (no EPIPE trace)', async () => {
    const result = await cli(['--', 'sh', '-c', 'echo boom >&2; exit 3'], { input: '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n', holdStdin: true });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('boom');
    expect(result.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });

  it('a missing agent binary is 127 in run and in exec', async () => {
    const run = await cli(['--', '/nonexistent-acp-broker/agent'], { holdStdin: true });
    expect(run.code).toBe(127);
    expect(run.stderr).toContain('cannot start the agent `/nonexistent-acp-broker/agent`');
    const exec = await cli(['exec', '--prompt', 'hi', '--', '/nonexistent-acp-broker/agent']);
    expect(exec.code).toBe(127);
    expect(exec.stderr).toContain('cannot start the agent');
  });
});

describe('the agent\'s whole process tree ends with the session', () => {
  const cleanup: number[] = [];
  afterEach(() => { for (const pid of cleanup.splice(0)) killQuietly(pid); });

  it('a process the agent left behind is terminated when the agent exits', async () => {
    const run = startBroker({});
    await run.report('hello');
    run.send(command('spawn-grandchild'));
    const { pid: grandchild } = await run.report('grandchild');
    cleanup.push(grandchild as number);
    expect(isAlive(grandchild as number)).toBe(true);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    expect(isAlive(grandchild as number)).toBe(false);
  }, 20_000);
});
