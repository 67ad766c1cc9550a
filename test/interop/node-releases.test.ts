// The broker on the other Node releases its `engines` field admits (22, 24, 26), real binaries from
// npm's per-platform builds installed into the interop cache: relaying, deciding and `check` behave
// as on the Node running the tests, and nothing but ACP reaches stdout. V8 prints a flag it does not
// know as an error (on stdout under Node 22, the ACP stream): the JIT flags of one V8 generation
// must not reach another.
// Run: ACP_INTEROP_CACHE=DIR npx vitest run test/interop/node-releases.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, spawnBroker, tempDir } from '../helpers/cli.js';
import { NODE_RELEASES, packageDir, prepareAgents } from './install-agents.mjs';

type Release = keyof typeof NODE_RELEASES;
const releases = Object.keys(NODE_RELEASES) as Release[];
const onItsPlatform = process.platform === 'linux' && process.arch === 'x64';
let setupProblem: string | null = null;

beforeAll(async () => {
  if (!onItsPlatform) return;
  setupProblem = await prepareAgents(releases, (s: string) => console.warn(s));
  if (setupProblem) console.warn(`!!! NODE RELEASE TESTS SKIPPED (not a pass): ${setupProblem}`);
}, 10 * 60_000);

const nodeOf = (release: Release) => join(packageDir(release), NODE_RELEASES[release].bin);

async function broker(node: string, args: string[], home = tempDir(), stdin = Buffer.alloc(0)) {
  const run = spawnBroker(args, { ACP_BROKER_HOME: home }, node);
  run.child.stdin.end(stdin);
  const { code } = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr(), home };
}

describe.runIf(onItsPlatform).each(releases)('the broker on %s', (release) => {
  it('relays both directions byte for byte, with nothing on stderr', async ({ skip }) => {
    if (setupProblem) skip(setupProblem);
    const node = nodeOf(release);
    const dir = tempDir();
    const lines = [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"caf\\u00e9 🦀"}}}}',
      'not json',
    ];
    const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
    writeFileSync(join(dir, 'agent-out.bin'), bytes);
    const run = spawnBroker(['run', '--policy', join(FIXTURES, 'allow-all.yaml'), '--', node, join(FIXTURES, 'recording-agent.mjs')], {
      ACP_BROKER_HOME: dir, RECORD_TO: join(dir, 'agent-in.bin'), EMIT_FROM: join(dir, 'agent-out.bin'), EXIT_CODE: '0',
    }, node);
    run.child.stdin.end(bytes);
    const { code } = await run.exit;
    expect(run.stderr()).toBe('');
    expect(code).toBe(0);
    expect(run.stdout().equals(bytes)).toBe(true);
    expect(readFileSync(join(dir, 'agent-in.bin')).equals(bytes)).toBe(true);
  }, 60_000);

  it('decides a headless session (exec): the demo agent\'s turn ends, its denials audited', async ({ skip }) => {
    if (setupProblem) skip(setupProblem);
    const node = nodeOf(release);
    const run = await broker(node, ['exec', '--policy', join(ROOT, 'policies', 'ci-strict.yaml'), '--prompt', 'fix it', '--cwd', tempDir(), '--', node, join(ROOT, 'examples', 'demo', 'scripted-agent.mjs')]);
    expect(run.stderr).not.toMatch(/flag/i);
    expect(run.stderr).toContain('acp-broker: turn ended: end_turn');
    expect(run.code).toBe(0);
    const events = readFileSync(join(run.home, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; decision?: string });
    expect(events.some((e) => e.event === 'decision' && e.decision === 'deny')).toBe(true);
  }, 60_000);

  it('checks lines through the full shell parser as on this Node', async ({ skip }) => {
    if (setupProblem) skip(setupProblem);
    const node = nodeOf(release);
    const policy = join(ROOT, 'policies', 'default.yaml');
    const line = 'for f in *.md; do grep -n TODO "$f"; done && cat .env';
    const there = await broker(node, ['check', '--policy', policy, '--json', '--', line]);
    const here = await broker(process.execPath, ['check', '--policy', policy, '--json', '--', line]);
    expect(there.code).toBe(1);
    expect(there.stdout.toString()).toBe(here.stdout.toString());
    expect(there.stderr).toBe('');
  }, 60_000);
});
