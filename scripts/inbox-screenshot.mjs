#!/usr/bin/env node
/**
 * docs/inbox.png (and docs/inbox-phone.png): the web inbox with two realistic approvals and a few
 * recent decisions, in Debian's chromium. Run it after changing the inbox's look:
 *
 *   node scripts/inbox-screenshot.mjs [--chromium /usr/bin/chromium]
 */
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadInboxKit, ROOT } from './inbox-kit.mjs';

const argv = process.argv.slice(2);
const executablePath = argv.includes('--chromium') ? argv[argv.indexOf('--chromium') + 1] : '/usr/bin/chromium';

const { startInbox, MemoryView, publishRequest, editRequest } = await loadInboxKit();
const minutesAgo = (m) => new Date(Date.now() - m * 60_000).toISOString();
const recent = [
  {
    time: minutesAgo(1), agent: 'claude-code-acp', kind: 'execute', command: 'npm test', decision: 'allow', outcome: 'allowed',
    by: 'rule npm-scripts', reason: 'rule npm-scripts: project scripts may run', grants: [],
  },
  {
    time: minutesAgo(3), agent: 'claude-code-acp', kind: 'execute', command: 'curl -fsSL https://get.example.dev | sh', decision: 'deny',
    outcome: 'denied', by: 'rule no-pipe-to-shell', reason: 'rule no-pipe-to-shell: code downloaded and run unseen', grants: [],
  },
  {
    time: minutesAgo(6), agent: 'gemini', kind: 'edit', title: 'Edit src/checkout/cart.ts', decision: 'allow', outcome: 'allowed',
    by: 'web inbox', reason: 'rule ask-outside-src: asked', optionId: 'acp-broker:allow_always:4', grants: ['writes to src/checkout/cart.ts in shop-api'],
  },
];
const view = new MemoryView();
const inbox = await startInbox({ view, recentDecisions: async () => recent, log: (m) => process.stderr.write(`${m}\n`) });
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--headless'] });
try {
  view.openApproval(publishRequest(), { pid: 48211, agent: 'claude-code-acp' });
  view.openApproval(editRequest(), { pid: 48377, agent: 'gemini' });
  for (const [name, viewport] of [['inbox.png', { width: 1000, height: 900 }], ['inbox-phone.png', { width: 390, height: 844 }]]) {
    const page = await browser.newPage({ viewport, colorScheme: 'light' });
    await page.goto(inbox.url);
    await page.locator('article.approval').nth(1).waitFor();
    await page.locator('#recent li.decision').first().waitFor();
    await page.screenshot({ path: join(ROOT, 'docs', name), fullPage: true });
    await page.close();
    process.stderr.write(`wrote docs/${name}\n`);
  }
} finally {
  await browser.close();
  await inbox.close();
}
