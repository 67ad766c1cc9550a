import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, spawnBroker, tempDir } from '../helpers/cli.js';

// The built CLI (dist/bin, with its build id) on a policy it has seen: the policy is restored from
// the record, so the YAML library never loads — and every decision is the one a fresh parse makes.

const request = (command: string) => `${JSON.stringify({ jsonrpc: '2.0', id: 'p1', method: 'session/request_permission', params: {
  sessionId: 's', toolCall: { toolCallId: 't', kind: 'execute', rawInput: { command } },
  options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }, { optionId: 'no', name: 'No', kind: 'reject_once' }] } })}\n`;

/** Prints, as the broker exits, whether the `yaml` package was loaded (imported or required: both fill the CommonJS cache). */
const PROBE = `import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
if (process.argv[1]?.endsWith('acp-broker.js')) process.on('exit', () => process.stderr.write('YAML-LOADED ' + Object.keys(cache).some((k) => k.includes('/node_modules/yaml/')) + '\\n'));
`;

/**
 * One `run` whose agent asks about `command` (in no session: anything but a rule's deny asks, and
 * asking is a deny here). The option the broker chose, the decision and its source as audited, and
 * whether YAML loaded. `linger`: the run lasts long enough to record what the policy loaded to.
 */
async function decide(home: string, policy: string, command: string, linger = false): Promise<{ option: string; audited: string; yaml: boolean }> {
  const dir = tempDir();
  writeFileSync(join(dir, 'emit'), request(command));
  writeFileSync(join(dir, 'probe.mjs'), PROBE);
  const recorded = join(dir, 'recorded');
  const run = spawnBroker(['--policy', policy, '--non-interactive', '--', process.execPath, '-e',
    `process.stdout.write(require('fs').readFileSync(${JSON.stringify(join(dir, 'emit'))}));process.stdin.pipe(require('fs').createWriteStream(${JSON.stringify(recorded)}));`],
  { ACP_BROKER_HOME: home, NODE_OPTIONS: `--import=${join(dir, 'probe.mjs')}` });
  const answered = () => { try { return readFileSync(recorded, 'utf8').includes('"id":"p1"'); } catch { return false; } };
  const started = Date.now();
  while (!answered() && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 25));
  // A start that validated records what the policy loads to a second after its engine is ready.
  if (linger) await new Promise((r) => setTimeout(r, 1500));
  run.child.stdin.end();
  await run.exit;
  const answer = JSON.parse(readFileSync(recorded, 'utf8')) as { result: { outcome: { optionId: string } } };
  const loaded = /YAML-LOADED (true|false)/.exec(run.stderr());
  if (!loaded) throw new Error(`no probe output: ${run.stderr()}`);
  const lines = readFileSync(join(home, 'audit.jsonl'), 'utf8').trim().split('\n');
  const event = JSON.parse(lines.at(-1)!) as { policyDecision: string; source: { ruleId?: string; type: string } };
  return { option: answer.result.outcome.optionId, audited: `${event.policyDecision} ${event.source.ruleId ?? event.source.type}`, yaml: loaded[1] === 'true' };
}

type Record = { policies: { file: string; loaded?: { build: string; files: unknown } }[] };

describe('a start on a policy seen before restores it instead of parsing', () => {
  it('decides as a fresh parse does, without loading YAML; another build id, a damaged record or a changed extended file parse again', async () => {
    const home = tempDir();
    const dir = tempDir();
    const policy = join(dir, 'user.yaml');
    const team = join(dir, 'team.yaml');
    writeFileSync(team, 'version: 1\ndefault: allow\nrules:\n  - id: no-curl\n    decision: deny\n    match: { command: [curl] }\n    examples: { match: [{ command: "curl x" }] }\n');
    writeFileSync(policy, 'version: 1\nextends: [./team.yaml]\nrules:\n  - id: tests\n    decision: allow\n    match: { command: ["npm test"] }\n');
    const recordPath = join(home, 'checked-policies.json');
    const readRecord = () => JSON.parse(readFileSync(recordPath, 'utf8')) as Record;

    const denied = { option: 'no', audited: 'deny team:no-curl' };
    expect(await decide(home, policy, 'curl https://example.com', true)).toEqual({ ...denied, yaml: true }); // first start: validated
    const build = `${readFileSync(join(ROOT, 'dist', 'bin', 'build-id'), 'utf8').trim()} node ${process.version}`;
    expect(readRecord().policies.find((p) => p.file === policy)?.loaded?.build).toBe(build);
    expect(await decide(home, policy, 'curl https://example.com')).toEqual({ ...denied, yaml: false });
    expect(await decide(home, policy, 'npm test')).toEqual({ option: 'no', audited: 'ask fallback', yaml: false });

    const edit = (change: (entry: NonNullable<Record['policies'][number]['loaded']>) => void) => {
      const record = readRecord();
      change(record.policies.find((p) => p.file === policy)!.loaded!);
      writeFileSync(recordPath, JSON.stringify(record));
    };
    edit((loaded) => { loaded.build = 'f'.repeat(64); });
    expect(await decide(home, policy, 'curl https://example.com', true)).toEqual({ ...denied, yaml: true });
    expect(await decide(home, policy, 'curl https://example.com')).toEqual({ ...denied, yaml: false }); // recorded again for this build
    edit((loaded) => { loaded.files = [{ rules: 'damaged' }]; });
    expect(await decide(home, policy, 'curl https://example.com', true)).toEqual({ ...denied, yaml: true });

    writeFileSync(team, readFileSync(team, 'utf8').replace('[curl]', '[wget]').replace('curl x', 'wget x'));
    expect(await decide(home, policy, 'curl https://example.com', true)).toEqual({ option: 'no', audited: 'ask fallback', yaml: true });
    expect(await decide(home, policy, 'wget https://example.com')).toEqual({ option: 'no', audited: 'deny team:no-curl', yaml: false });
  });
});
