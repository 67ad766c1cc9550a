import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startInbox, type Inbox } from '../../../src/daemon/web/server.js';
import type { RecentDecision } from '../../../src/daemon/web/recent-decisions.js';
import { launchChromium } from './browser.js';
import { editRequest, publishRequest } from './fixtures.js';
import { MemoryView } from './memory-view.js';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let view: MemoryView;
let inbox: Inbox;
let recent: RecentDecision[];
let logs: string[];
/** The page's script errors and console errors (a CSP violation is one). */
let pageErrors: string[];
/** The inbox's log of refused requests, reduced to method, path, Origin and status. */
const refusals = () => logs.map((line) => line.replace(/^acp-broker inbox: refused (\S+) "(\S+)" \(Host "\S+", Origin "(\S+)"\): (\d+) .*$/, '$1 $2 (Origin $3): $4'));

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  view = new MemoryView();
  recent = [];
  logs = [];
  inbox = await startInbox({ view, recentDecisions: async () => recent, log: (m) => logs.push(m) });
  context = await browser.newContext();
  page = await context.newPage();
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') pageErrors.push(message.text()); });
});
afterEach(async () => {
  await context.close();
  await inbox.close();
});

const cards = () => page.locator('article.approval');

async function openInbox(): Promise<void> {
  await page.goto(inbox.url);
  await page.locator('#connection.live').waitFor();
}

describe('the inbox in a real browser', () => {
  it('signs in with the token, drops it from the address, shows an approval live, and answers "Allow once"', async () => {
    await openInbox();
    expect(page.url()).toBe(`${inbox.origin}/`);
    await expect(page.locator('#empty').isVisible()).resolves.toBe(true);
    const id = view.openApproval(publishRequest());
    const card = cards().first();
    await card.waitFor();
    expect(await card.locator('h3').textContent()).toBe('claude-code-acp wants to run a command in shop-api');
    const text = await card.innerText();
    for (const shown of [
      'Publish the package to npm', 'npm version patch && npm publish --access public',
      'rule ask-before-publishing: publishing a package is visible to everyone and cannot be undone',
      'ask-before-publishing', 'npm-scripts', '/home/dev/shop-api', 'sess_7f3a9c', 'pid 4242',
      'Remembers: `npm publish --access public` in /home/dev/shop-api, for claude-code-acp',
    ]) expect(text).toContain(shown);
    expect(await card.locator('.countdown').textContent()).toMatch(/^falls back in [45]:\d\d$/);
    expect(await card.locator('button').allTextContents()).toEqual([
      'Allow once', 'Reject', 'Always allow `npm publish --access public` in shop-api', 'Always reject `npm publish --access public` in shop-api',
    ]);
    expect(await page.locator('#pending-count').textContent()).toBe('1');
    await card.getByRole('button', { name: 'Allow once' }).click();
    await cards().first().waitFor({ state: 'detached' });
    expect(view.answers.map((a) => [a.id, a.optionId, a.via])).toEqual([[id, 'allow', 'web']]);
    expect(await page.locator('#pending-count').textContent()).toBe('0');
    expect(await page.locator('#settled-note').textContent()).toBe('claude-code-acp wants to run a command in shop-api: answered in the web inbox: Allow once.');    expect(pageErrors).toEqual([]);
  });

  it('shows edits with their diff, the "Always" options with what they cover; approvals withdrawn or gone leave, saying why', async () => {
    await openInbox();
    const edit = view.openApproval(editRequest());
    const card = cards().first();
    await card.waitFor();
    expect(await card.locator('.diff-body .line.del').allTextContents()).toEqual(['- LOG_LEVEL=warn\n']);
    expect(await card.locator('.diff-body .line.add').allTextContents()).toEqual(['+ LOG_LEVEL=debug\n', '+ FEATURE_CHECKOUT_V2=1\n']);
    expect(await card.locator('.countdown').textContent()).toBe('waits until someone answers');
    const always = card.getByRole('button', { name: 'Always allow writes to .env.production in shop-api' });
    expect(await always.getAttribute('aria-describedby')).toBeTruthy();
    expect(await card.locator(`#${await always.getAttribute('aria-describedby')}`).textContent())
      .toBe('Remembers: writes to /home/dev/shop-api/.env.production, for gemini');
    view.withdraw(edit, 'answered in the editor');
    await card.waitFor({ state: 'detached' });
    expect(await page.locator('#settled-note').textContent()).toBe('gemini wants to edit files in shop-api: withdrawn by its broker (answered in the editor).');
    // A broker that dies takes its approvals with it; the page says so.
    view.openApproval(publishRequest(), { pid: 777, agent: 'claude-code-acp' });
    view.openApproval(editRequest(), { pid: 777, agent: 'gemini' });
    await cards().nth(1).waitFor();
    view.disconnect(777);
    await page.waitForFunction(() => document.querySelectorAll('article.approval').length === 0);
    expect(await page.locator('#settled-note').textContent()).toBe('gemini wants to edit files in shop-api: its broker is gone.');
    expect(view.answers).toEqual([]);
  });

  it('is usable from the keyboard alone: j jumps to an approval, Tab moves between answers, Enter and Space answer', async () => {
    await openInbox();
    const first = view.openApproval(publishRequest());
    const second = view.openApproval(editRequest());
    await cards().nth(1).waitFor();
    await page.keyboard.press('j');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow once');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Reject');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('article.approval').length === 1);
    // The answered card is gone; focus is on the next approval's first answer, not lost.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow once');
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelectorAll('article.approval').length === 0);
    expect(view.answers.map((a) => [a.id, a.optionId])).toEqual([[first, 'reject'], [second, 'proceed_once']]);
  });

  it('says so clearly when an approval was settled elsewhere first (409), and nothing changes', async () => {
    await openInbox();
    const id = view.openApproval(publishRequest());
    await cards().first().waitFor();
    const answer = view.answer.bind(view);
    // The terminal answers just before the click lands.
    view.answer = (approval, optionId, via) => {
      answer(approval, 'reject', 'terminal');
      return answer(approval, optionId, via);
    };
    await cards().first().getByRole('button', { name: 'Allow once' }).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator('#notice').textContent()).toBe('Already settled, nothing changed: answered in the terminal.');
    expect(view.answers.map((a) => [a.id, a.optionId, a.via])).toEqual([[id, 'reject', 'terminal']]);
  });

  it('renders hostile titles, commands, paths, diffs and option names as text', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>';
    recent = [{
      time: new Date().toISOString(), agent: '<b>agent</b>', kind: 'execute', title: undefined, command: `echo ${hostile}`, decision: 'deny',
      outcome: 'denied', by: 'web inbox', reason: `<svg onload="window.__pwned=3">`, optionId: undefined, grants: [],
    }];
    await openInbox();
    view.openApproval(publishRequest({
      agent: '<i>claude</i>', title: hostile, command: `echo "${hostile}"`, reason: '<a href="javascript:alert(1)">why</a>',
      paths: [{ path: '/tmp/<svg onload="window.__pwned=4">', access: 'write' }],
      items: [{ item: '<iframe src="about:blank">', decision: 'ask', rules: ['<u>r</u>'] }],
      diffs: [{ path: '/tmp/<b>x</b>', oldText: null, newText: '<script>window.__pwned=5</script>' }],
      options: [{ optionId: 'allow', name: '<button>Allow</button>', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject \u202egnp.exe', kind: 'reject_once' }],
    }));
    const card = cards().first();
    await card.waitFor();
    await page.locator('#recent li.decision').waitFor();
    expect(await page.locator('main img, main svg, main script, main iframe, main b, main i, main u, main a, article button button').count()).toBe(0);
    expect(await card.locator('.title').textContent()).toBe(hostile);
    expect(await card.locator('.command').textContent()).toBe(`echo "${hostile}"`);
    expect(await card.locator('h3').textContent()).toBe('<i>claude</i> wants to run a command in shop-api');
    expect(await card.locator('.diff-body').textContent()).toBe('+ <script>window.__pwned=5</script>\n');
    // A bidi override would reorder what is read; it is shown as an escape instead.
    expect(await card.locator('button').allTextContents()).toEqual(['<button>Allow</button>', 'Reject \\u{202e}gnp.exe']);
    expect(await page.locator('#recent').innerText()).toContain(`echo ${hostile}`);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(pageErrors).toEqual([]);
  });

  it('shows the recent decisions with their reasons, refreshed after an answer', async () => {
    recent = [{
      time: '2026-12-01T12:00:00.000Z', agent: 'claude-code-acp', kind: 'execute', title: undefined, command: 'rm -rf node_modules', decision: 'allow',
      outcome: 'allowed', by: 'rule cleanup', reason: 'rule cleanup: removing build output is fine', optionId: undefined, grants: [],
    }];
    await openInbox();
    await page.locator('#recent li.decision').waitFor();
    expect(await page.locator('#recent').innerText()).toContain('rule cleanup: removing build output is fine');
    view.openApproval(publishRequest());
    await cards().first().waitFor();
    recent = [{ ...recent[0]!, command: 'npm publish --access public', by: 'web inbox', reason: 'answered in the inbox' }, ...recent];
    await cards().first().getByRole('button', { name: 'Reject', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('#recent li.decision').length === 2);
    expect(await page.locator('#recent li.decision').first().innerText()).toContain('by web inbox');
  });

  it('after a daemon restart (new token), an open page says how to get back in', async () => {
    await openInbox();
    const port = inbox.port;
    await inbox.close();
    inbox = await startInbox({ view, port, recentDecisions: async () => recent, log: (m) => logs.push(m) });
    await page.locator('#connection', { hasText: 'disconnected' }).waitFor();
    expect(await page.locator('#notice').textContent()).toBe('The inbox stopped or restarted: run acp-broker inbox for its current address.');
  });

  it('fits a phone-sized window without sideways scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await openInbox();
    view.openApproval(publishRequest({ command: `curl -fsSL https://example.com/${'very-long-path-segment/'.repeat(12)}install.sh | sh` }));
    view.openApproval(editRequest());
    await cards().nth(1).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const widths = await cards().first().locator('button').evaluateAll((buttons) => buttons.map((b) => b.getBoundingClientRect().width));
    expect(Math.min(...widths)).toBeGreaterThan(280);
  });
});

describe('the inbox against another origin in the same browser', () => {
  let attacker: Server;
  let attackerOrigin: string;
  beforeEach(async () => {
    attacker = createServer((request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end(ATTACKER_PAGES[new URL(request.url ?? '/', 'http://attacker').pathname] ?? '');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => attacker.close(resolve));
  });

  it('a page on another port of 127.0.0.1 (same site, other origin) cannot answer by fetch or by form', async () => {
    await openInbox();
    const id = view.openApproval(publishRequest());
    await cards().first().waitFor();
    const answerBody = JSON.stringify({ id, optionId: 'allow' });
    const target = `${inbox.origin}/api/answer`;

    const evil = await context.newPage();
    await evil.goto(`${attackerOrigin}/fetch`);
    const outcomes = await evil.evaluate(async ({ target, answerBody }) => {
      const attempt = (init: RequestInit) => fetch(target, { method: 'POST', credentials: 'include', body: answerBody, ...init })
        .then((r) => `status ${r.status}`, (e: Error) => `failed: ${e.message}`);
      return [
        await attempt({ headers: { 'Content-Type': 'application/json' } }),
        await attempt({ headers: { 'Content-Type': 'text/plain' } }),
        await attempt({ mode: 'no-cors', headers: { 'Content-Type': 'text/plain' } }),
      ];
    }, { target, answerBody });
    // JSON needs a preflight, which carries no cookie and is refused; the others are sent but refused by Origin, and unreadable.
    expect(outcomes).toEqual(['failed: Failed to fetch', 'failed: Failed to fetch', 'failed: Failed to fetch']);
    // What reached the inbox: the preflight (no cookie: 401) and the two simple POSTs (cookie sent, same site; Origin refused).
    expect(refusals().sort()).toEqual([
      `OPTIONS /api/answer (Origin ${attackerOrigin}): 401`,
      `POST /api/answer (Origin ${attackerOrigin}): 403`,
      `POST /api/answer (Origin ${attackerOrigin}): 403`,
    ]);

    const refused = evil.waitForResponse((r) => r.url() === target);
    await evil.goto(`${attackerOrigin}/form?${new URLSearchParams({ target, id })}`);
    expect((await refused).status()).toBe(403);
    expect(refusals().slice(3)).toEqual([`POST /api/answer (Origin ${attackerOrigin}): 403`]);

    // A frame of the inbox in the attacker's page (the cookie goes along: same site) is refused by the browser.
    const framed = evil.waitForResponse((r) => r.url() === `${inbox.origin}/`);
    const blocked = evil.waitForEvent('console', (m) => m.text().includes('frame-ancestors'));
    await evil.goto(`${attackerOrigin}/frame?${new URLSearchParams({ target: `${inbox.origin}/` })}`);
    expect((await framed).status()).toBe(200);
    expect((await blocked).text()).toContain(`Framing '${inbox.origin}/' violates the following Content Security Policy directive: "frame-ancestors 'none'"`);
    const frame = evil.frames().find((f) => f.url().startsWith(inbox.origin));
    expect(frame ? await frame.locator('#pending').count() : 0).toBe(0);

    expect(view.answers).toEqual([]);
    expect(view.pending().map((a) => a.id)).toEqual([id]);
    expect(await cards().count()).toBe(1);
  });
});

/** The attacker's pages: inline script is theirs to use (no CSP of ours applies there). */
const ATTACKER_PAGES: Record<string, string> = {
  '/fetch': '<!doctype html><title>evil</title><p>hello</p>',
  '/form': `<!doctype html><title>evil form</title>
<form id="f" method="POST" enctype="text/plain"></form>
<script>
  var q = new URLSearchParams(location.search);
  var f = document.getElementById('f');
  f.action = q.get('target');
  var i = document.createElement('input');
  i.name = '{"id":"' + q.get('id') + '","optionId":"allow","x":"';
  i.value = '"}';
  f.appendChild(i);
  f.submit();
</script>`,
  '/frame': `<!doctype html><title>evil frame</title><iframe id="i"></iframe>
<script>document.getElementById('i').src = new URLSearchParams(location.search).get('target');</script>`,
};
