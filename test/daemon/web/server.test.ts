import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startInbox, type Inbox } from '../../../src/daemon/web/server.js';
import { editRequest, publishRequest } from './fixtures.js';
import { openEvents, postAnswer, send, signIn } from './http.js';
import { MemoryView } from './memory-view.js';

let view: MemoryView;
let inbox: Inbox;
let logs: string[];

beforeEach(async () => {
  view = new MemoryView();
  logs = [];
  inbox = await startInbox({ view, recentDecisions: async () => [], log: (m) => logs.push(m) });
});
afterEach(async () => {
  await inbox.close();
});

describe('the inbox server: who may talk to it', () => {
  it('listens on the loopback address only, with a token of at least 128 bits', async () => {
    expect(inbox.url).toBe(`http://127.0.0.1:${inbox.port}/?token=${inbox.token}`);
    expect(Buffer.from(inbox.token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const other = await startInbox({ view, recentDecisions: async () => [], log: () => {} });
    expect(other.token).not.toBe(inbox.token);
    await other.close();
    // Connecting on any non-loopback address of this machine fails (there may be none but loopback).
    const { networkInterfaces } = await import('node:os');
    const external = Object.values(networkInterfaces()).flat().filter((i) => i && !i.internal && i.family === 'IPv4');
    for (const address of external) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect(inbox.port, address!.address);
        socket.on('connect', () => { socket.destroy(); resolve(false); });
        socket.on('error', () => resolve(true));
      });
      expect(refused, address!.address).toBe(true);
    }
  });

  it('exchanges the token once for an HttpOnly SameSite=Strict cookie and a token-free address', async () => {
    const reply = await send(inbox.port, { path: `/?token=${inbox.token}` });
    expect(reply.status).toBe(303);
    expect(reply.headers.location).toBe('/');
    const cookie = reply.headers['set-cookie']![0]!;
    expect(cookie).toMatch(new RegExp(`^acp_inbox_${inbox.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    expect(cookie).not.toContain(inbox.token);
    const page = await send(inbox.port, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="/inbox.js" defer></script>');
  });

  it('refuses every request without the cookie, and a wrong token', async () => {
    for (const path of ['/', '/inbox.js', '/inbox.css', '/api/pending', '/api/events', '/api/recent', '/nope']) {
      const reply = await send(inbox.port, { path });
      expect(reply.status, path).toBe(401);
      expect(reply.body).not.toContain('id="pending"');
    }
    expect((await send(inbox.port, { path: '/?token=0123456789abcdef' })).status).toBe(403);
    expect((await send(inbox.port, { path: '/', headers: { cookie: `acp_inbox_${inbox.port}=guess` } })).status).toBe(401);
    const id = view.openApproval(publishRequest());
    const unsigned = await send(inbox.port, {
      method: 'POST', path: '/api/answer', body: JSON.stringify({ id, optionId: 'allow' }),
      headers: { origin: inbox.origin, 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);
    expect(view.answers).toEqual([]);
  });

  it('refuses a Host that is not 127.0.0.1 or localhost with this port (DNS rebinding), even with the token or cookie', async () => {
    const cookie = await signIn(inbox);
    const id = view.openApproval(publishRequest());
    for (const host of ['evil.example', `evil.example:${inbox.port}`, '127.0.0.1', `127.0.0.1:${inbox.port + 1}`, `localhost.evil.example:${inbox.port}`, `[::1]:${inbox.port}`]) {
      expect((await send(inbox.port, { path: `/?token=${inbox.token}`, headers: { host } })).status, host).toBe(421);
      expect((await send(inbox.port, { path: '/api/pending', headers: { host, cookie } })).status, host).toBe(421);
      expect((await postAnswer(inbox, cookie, { id, optionId: 'allow' }, { host, origin: `http://${host}` })).status, host).toBe(421);
    }
    expect((await send(inbox.port, { path: '/api/pending', headers: { host: `localhost:${inbox.port}`, cookie } })).status).toBe(200);
    expect(view.answers).toEqual([]);
  });

  it('takes an answer only as a JSON POST whose Origin is the inbox itself', async () => {
    const cookie = await signIn(inbox);
    const id = view.openApproval(publishRequest());
    const refused = [
      await postAnswer(inbox, cookie, { id, optionId: 'allow' }, { origin: 'http://evil.example' }),
      await postAnswer(inbox, cookie, { id, optionId: 'allow' }, { origin: `http://127.0.0.1:${inbox.port + 1}` }),
      await postAnswer(inbox, cookie, { id, optionId: 'allow' }, { origin: 'null' }),
      // localhost and 127.0.0.1 are different origins: the Origin must match the Host used.
      await postAnswer(inbox, cookie, { id, optionId: 'allow' }, { origin: `http://localhost:${inbox.port}` }),
      await send(inbox.port, { method: 'POST', path: '/api/answer', body: JSON.stringify({ id, optionId: 'allow' }), headers: { cookie, 'content-type': 'application/json' } }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    const form = await postAnswer(inbox, cookie, { id, optionId: 'allow' }, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    const get = await send(inbox.port, { path: `/api/answer?id=${id}&optionId=allow`, headers: { cookie } });
    expect(get.status).toBe(405);
    expect(view.answers).toEqual([]);
    const ok = await postAnswer(inbox, cookie, { id, optionId: 'allow' });
    expect(ok.status).toBe(200);
    expect(view.answers.map((a) => [a.id, a.optionId, a.via])).toEqual([[id, 'allow', 'web']]);
  });

  it('logs refused answers with the headers quoted, and no more than 20 a minute', async () => {
    const cookie = await signIn(inbox);
    const id = view.openApproval(publishRequest());
    for (let i = 0; i < 30; i++) await postAnswer(inbox, cookie, { id, optionId: 'allow' }, { origin: `http://evil.example/"${i}` });
    expect(logs).toHaveLength(20);
    expect(logs[0]).toBe(`acp-broker inbox: refused POST "/api/answer" (Host "127.0.0.1:${inbox.port}", Origin "http://evil.example/\\"0"): 403 Answers are accepted only from the inbox page itself.`);
    expect(view.answers).toEqual([]);
  });

  it('answers a settled approval with 409 and changes nothing; unknown 404; an option not offered 400', async () => {
    const cookie = await signIn(inbox);
    const id = view.openApproval(publishRequest());
    expect((await postAnswer(inbox, cookie, { id, optionId: 'no-such-option' })).status).toBe(400);
    expect((await postAnswer(inbox, cookie, { id, optionId: 'allow' })).status).toBe(200);
    const late = await postAnswer(inbox, cookie, { id, optionId: 'reject' });
    expect(late.status).toBe(409);
    expect(JSON.parse(late.body)).toEqual({ error: 'settled', message: 'Already settled, nothing changed: answered in the web inbox.' });
    const withdrawn = view.openApproval(editRequest());
    view.withdraw(withdrawn, 'answered in the editor');
    const afterEditor = await postAnswer(inbox, cookie, { id: withdrawn, optionId: 'proceed_once' });
    expect(afterEditor.status).toBe(409);
    expect(JSON.parse(afterEditor.body).message).toBe('Already settled, nothing changed: withdrawn by its broker (answered in the editor).');
    expect((await postAnswer(inbox, cookie, { id: 'never-opened', optionId: 'allow' })).status).toBe(404);
    expect((await postAnswer(inbox, cookie, { id })).status).toBe(400);
    expect((await send(inbox.port, { method: 'POST', path: '/api/answer', body: '{', headers: { cookie, origin: inbox.origin, 'content-type': 'application/json' } })).status).toBe(400);
    expect((await postAnswer(inbox, cookie, { id: 'x', optionId: 'y'.repeat(20_000) })).status).toBe(413);
    expect(view.answers.map((a) => a.optionId)).toEqual(['allow']);
  });

  it('sends a Content-Security-Policy without inline script, no framing and no caching on every response', async () => {
    const cookie = await signIn(inbox);
    for (const path of ['/', '/inbox.js', '/api/pending', '/api/recent', '/nope']) {
      for (const headers of [{ cookie }, {}]) {
        const reply = await send(inbox.port, { path, headers });
        expect(reply.headers['content-security-policy'], path).toContain("script-src 'self'");
        expect(reply.headers['content-security-policy']).not.toContain('unsafe-inline');
        expect(reply.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(reply.headers['x-frame-options']).toBe('DENY');
        expect(reply.headers['cache-control']).toBe('no-store');
      }
    }
    const page = await send(inbox.port, { headers: { cookie } });
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page.body).not.toMatch(/\son[a-z]+=/);
  });
});

describe('the inbox server: live events', () => {
  it('streams a snapshot, then opened and settled as the view emits them', async () => {
    const cookie = await signIn(inbox);
    const first = view.openApproval(publishRequest());
    const events = await openEvents(inbox.port, cookie);
    const snapshot = await events.next();
    expect(snapshot.event).toBe('snapshot');
    expect(JSON.parse(snapshot.data).map((a: { id: string }) => a.id)).toEqual([first]);
    const second = view.openApproval(editRequest());
    const opened = await events.next();
    expect(opened.event).toBe('opened');
    expect(JSON.parse(opened.data)).toMatchObject({ id: second, request: { title: 'Edit .env.production' } });
    expect((await postAnswer(inbox, cookie, { id: first, optionId: 'acp-broker:allow_always:1' })).status).toBe(200);
    const settled = await events.next();
    expect(settled.event).toBe('settled');
    expect(JSON.parse(settled.data)).toEqual({ id: first, settlement: { type: 'answered', via: 'web', optionId: 'acp-broker:allow_always:1' } });
    events.close();
  });

  it('close() ends open streams and stops listening', async () => {
    const cookie = await signIn(inbox);
    const events = await openEvents(inbox.port, cookie);
    await events.next();
    const port = inbox.port;
    await inbox.close();
    await expect(send(port)).rejects.toThrow(/ECONNREFUSED/);
    inbox = await startInbox({ view, recentDecisions: async () => [], log: () => {} });
  });

  it('reports an unreadable audit log as a clear error, not a crash', async () => {
    await inbox.close();
    inbox = await startInbox({ view, recentDecisions: async () => { throw new Error('EACCES: permission denied'); }, log: (m) => logs.push(m) });
    const cookie = await signIn(inbox);
    const reply = await send(inbox.port, { path: '/api/recent', headers: { cookie } });
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.body)).toEqual({ error: 'audit_read', message: 'Cannot read the audit log: EACCES: permission denied' });
    expect(logs).toEqual(['acp-broker inbox: cannot read the audit log: EACCES: permission denied']);
  });

  it('a port in use is a clear error', async () => {
    await expect(startInbox({ view, port: inbox.port, recentDecisions: async () => [], log: () => {} }))
      .rejects.toThrow(`cannot serve the inbox on 127.0.0.1:${inbox.port}: EADDRINUSE`);
  });
});
