#!/usr/bin/env node
/**
 * The web inbox's latency, in one process with a real browser (Debian chromium):
 * - opened → stream: the approvals view emits `opened` → the frame arrives in an SSE client's stream
 *   (a Node HTTP client) and → the approval's card is in the browser's page (MutationObserver);
 * - answer → view: a POST /api/answer leaves the client (Node keep-alive client; the browser's
 *   fetch from the inbox page) → ApprovalsView.answer runs.
 * Times are absolute (performance.timeOrigin + now()) so the browser's and Node's clocks compare.
 * The view is the in-memory one of the tests: this measures the inbox, not the daemon's registry.
 *
 *   node bench/inbox.mjs [--rounds 200] [--chromium /usr/bin/chromium]
 */
import { Agent, request } from 'node:http';
import { chromium } from 'playwright-core';
import { loadInboxKit } from '../scripts/inbox-kit.mjs';
import { median, sseParser } from './lib.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(option('--rounds', '200'));
const executablePath = option('--chromium', '/usr/bin/chromium');
const now = () => performance.timeOrigin + performance.now();

const { startInbox, MemoryView, publishRequest } = await loadInboxKit();
const view = new MemoryView();
const inbox = await startInbox({ view, recentDecisions: async () => [], log: () => {} });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const host = `127.0.0.1:${inbox.port}`;

function http(method, path, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: inbox.port, method, path, agent, headers: { host, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const signIn = await http('GET', `/?token=${inbox.token}`);
const cookie = signIn.headers['set-cookie'][0].split(';')[0];

/** An SSE client that calls `onEvent(name, data, at)` for every frame. */
function sseClient(onEvent) {
  const req = request({ host: '127.0.0.1', port: inbox.port, path: '/api/events', headers: { host, cookie } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', sseParser(onEvent, now));
  });
  req.end();
  return () => req.destroy();
}

const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--headless'] });
const page = await browser.newPage();
await page.goto(inbox.url);
await page.locator('#connection.live').waitFor();
await page.evaluate(() => {
  window.__cards = [];
  new MutationObserver((mutations) => {
    const at = performance.timeOrigin + performance.now();
    for (const m of mutations) for (const node of m.addedNodes) if (node.dataset?.id) window.__cards.push([node.dataset.id, at]);
  }).observe(document.getElementById('pending'), { childList: true });
});

const arrived = new Map();
let connected;
const snapshot = new Promise((resolve) => { connected = resolve; });
const closeSse = sseClient((event, data, at) => {
  if (event === 'snapshot') connected();
  if (event === 'opened') arrived.get(JSON.parse(data).id)?.(at);
});
await snapshot;

const toStream = [];
const toPage = [];
const postToView = [];
const fetchToView = [];
for (let i = 0; i < ROUNDS; i++) {
  // opened → SSE client and → browser DOM
  let streamedAt;
  const streamed = new Promise((resolve) => { streamedAt = resolve; });
  const sent = now();
  const id = view.openApproval(publishRequest({ approvalId: `r${i}` }));
  // Set before the frame can arrive: it is read on a later turn of the event loop.
  arrived.set(id, streamedAt);
  const streamAt = await streamed;
  arrived.delete(id);
  toStream.push(streamAt - sent);
  const pageAt = await page.waitForFunction((id) => window.__cards.find((c) => c[0] === id)?.[1], id).then((h) => h.jsonValue());
  toPage.push(pageAt - sent);

  // POST answer → view.answer, alternating a Node client and the page's fetch
  if (i % 2 === 0) {
    const before = now();
    const reply = await http('POST', '/api/answer', { cookie, origin: inbox.origin, 'content-type': 'application/json' }, JSON.stringify({ id, optionId: 'allow' }));
    if (reply.status !== 200) throw new Error(`answer: HTTP ${reply.status} ${reply.body}`);
    postToView.push(performance.timeOrigin + view.answers.at(-1).at - before);
  } else {
    const before = await page.evaluate(async (id) => {
      const t = performance.timeOrigin + performance.now();
      const r = await fetch('/api/answer', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id, optionId: 'allow' }) });
      if (!r.ok) throw new Error(`answer: HTTP ${r.status}`);
      return t;
    }, id);
    fetchToView.push(performance.timeOrigin + view.answers.at(-1).at - before);
  }
  await page.waitForFunction((id) => !document.querySelector(`[data-id="${CSS.escape(id)}"]`), id);
}

closeSse();
await browser.close();
await inbox.close();
agent.destroy();

const p95 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)];
const row = (name, values) => `| ${name} | ${median(values).toFixed(2)} | ${p95(values).toFixed(2)} | ${values.length} |`;
console.log([
  '| inbox latency (ms) | median | p95 | n |',
  '|---|---:|---:|---:|',
  row('`opened` emitted → SSE client stream', toStream),
  row('`opened` emitted → card in the browser page', toPage),
  row('POST /api/answer sent (Node client) → view.answer', postToView),
  row('fetch POST from the inbox page → view.answer', fetchToView),
].join('\n'));
