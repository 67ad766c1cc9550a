import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, spawnBroker, tempDir } from '../helpers/cli.js';
import { cli, startDaemon, type RunningDaemon } from './helpers.js';
import { launchChromium } from './web/browser.js';

// The whole desktop-approval path with real parts: the daemon and its web inbox, a broker (`exec`)
// in front of an ACP agent written with the reference SDK that runs what it is allowed, and Debian's
// chromium clicking in the inbox.

const AGENT = [process.execPath, join(FIXTURES, 'sdk-agent.mjs')];
const POLICY = 'version: 1\ndefault: ask\nnon_interactive: deny\nrules: []\n';

let browser: Browser;
let daemon: RunningDaemon | undefined;
beforeAll(async () => { browser = await launchChromium(); });
afterAll(async () => { await browser.close(); });
afterEach(async () => { await daemon?.stop(); daemon = undefined; });

async function signedInPage(home: string): Promise<{ page: Page; origin: string }> {
  const printed = await cli(home, ['inbox', '--print']);
  expect(printed.code).toBe(0);
  const url = printed.stdout.trim();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{40,}$/);
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  return { page, origin: new URL(url).origin };
}

function exec(home: string, workspace: string, prompt: string) {
  const policy = join(home, 'policy.yaml');
  writeFileSync(policy, POLICY);
  const audit = join(home, 'audit.jsonl');
  const run = spawnBroker(['exec', '--policy', policy, '--audit', audit, '--cwd', workspace, '--prompt', prompt, '--', ...AGENT],
    { ACP_BROKER_HOME: home, SDK_AGENT_EXECUTE: '1' });
  const decisions = () => readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; outcome?: string; source?: { type: string } })
    .filter((e) => e.event === 'decision');
  return { run, decisions };
}

describe('the web inbox answering a real broker', () => {
  it('an approval appears live; "Allow once" reaches the agent, which acts; the audit names the web inbox', async () => {
    const home = tempDir('acp-broker-inbox-e2e-');
    const workspace = tempDir('acp-broker-workspace-');
    daemon = await startDaemon({ home, args: ['--no-desktop'] });
    const { page } = await signedInPage(home);
    const { run, decisions } = exec(home, workspace, 'touch answered-in-the-inbox.txt');
    const card = page.locator('article.approval').first();
    await card.waitFor({ timeout: 30_000 });
    expect(await card.innerText()).toContain('touch answered-in-the-inbox.txt');
    // The agent's own one-shot allow option is called "Yes".
    await card.getByRole('button', { name: 'Yes', exact: true }).click();
    expect((await run.exit).code).toBe(0);
    expect(existsSync(join(workspace, 'answered-in-the-inbox.txt'))).toBe(true);
    expect(decisions().map((e) => [e.outcome, e.source?.type])).toEqual([['escalated', 'daemon'], ['allowed', 'web']]);
  }, 90_000);

  it('"Always allow …" in the inbox records the grant `acp-broker grants list` shows, and the next identical request is allowed by it', async () => {
    const home = tempDir('acp-broker-inbox-e2e-');
    const workspace = tempDir('acp-broker-workspace-');
    daemon = await startDaemon({ home, args: ['--no-desktop'] });
    const { page } = await signedInPage(home);
    const first = exec(home, workspace, 'touch always.txt');
    const card = page.locator('article.approval').first();
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('button', { name: /^Always allow/ }).click();
    expect((await first.run.exit).code).toBe(0);
    const grants = await cli(home, ['grants', 'list', '--json']);
    // What needed a human: the command, and the file it writes.
    expect(JSON.parse(grants.stdout)).toMatchObject([
      { decision: 'allow', subject: { type: 'command', argv: ['touch', 'always.txt'] }, scope: { type: 'project', dir: workspace } },
      { decision: 'allow', subject: { type: 'path', access: 'write' }, scope: { type: 'project', dir: workspace } },
    ]);
    const second = exec(home, workspace, 'touch always.txt');
    expect((await second.run.exit).code).toBe(0);
    expect(second.decisions().at(-1)).toMatchObject({ outcome: 'allowed', source: { type: 'grant' } });
  }, 90_000);

  it('a page from another origin in the same browser cannot answer: the approval stays open', async () => {
    const home = tempDir('acp-broker-inbox-e2e-');
    const workspace = tempDir('acp-broker-workspace-');
    daemon = await startDaemon({ home, args: ['--no-desktop'] });
    const { page, origin } = await signedInPage(home);
    const { run } = exec(home, workspace, 'touch never.txt');
    await page.locator('article.approval').first().waitFor({ timeout: 30_000 });
    const [open] = JSON.parse((await cli(home, ['approvals', 'list', '--json'])).stdout) as { id: string }[];
    const attacker: Server = createServer((_request, response) => { response.writeHead(200, { 'Content-Type': 'text/html' }); response.end('<p>hello</p>'); });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const evil = await page.context().newPage();
    await evil.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    const outcome = await evil.evaluate(async ({ target, body }) => {
      const tries = [{ 'Content-Type': 'application/json' }, { 'Content-Type': 'text/plain' }];
      return Promise.all(tries.map((headers) => fetch(target, { method: 'POST', credentials: 'include', headers, body }).then((r) => r.status, () => 'failed')));
    }, { target: `${origin}/api/answer`, body: JSON.stringify({ id: open!.id, optionId: 'allow-once' }) });
    expect(outcome).toEqual(['failed', 'failed']);
    await new Promise((resolve) => attacker.close(resolve));
    expect((JSON.parse((await cli(home, ['approvals', 'list', '--json'])).stdout) as unknown[]).length).toBe(1);
    expect((await cli(home, ['approvals', 'deny', open!.id])).code).toBe(0);
    expect((await run.exit).code).toBe(0);
    expect(existsSync(join(workspace, 'never.txt'))).toBe(false);
  }, 90_000);
});
