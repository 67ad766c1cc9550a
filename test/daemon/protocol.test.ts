import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectApprovals, type DaemonChannel } from '../../src/escalation/daemon-channel.js';
import { MAX_FRAME_BYTES } from '../../src/daemon/protocol.js';
import { offered, approval, cli, rawPeer, recorder, startDaemon, type RunningDaemon } from './helpers.js';

let d: RunningDaemon;
let bystander: DaemonChannel;
beforeAll(async () => {
  d = await startDaemon();
  // A well-behaved broker with an open approval: nothing another peer sends may disturb it.
  bystander = (await connectApprovals('daemon', { env: { ACP_BROKER_HOME: d.home } }))!;
});
afterAll(async () => {
  bystander.close();
  await d.stop();
});

const hello = (id: number, protocol = 1) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'hello', params: { protocol, role: 'broker', pid: 1, agent: 'raw' } })}\n`;

describe('the approvals socket protocol', () => {
  it('answers garbage, non-objects, batches and oversized frames with an error and keeps the connection', async () => {
    const peer = await rawPeer(d.socket);
    peer.send('this is not json\n');
    expect(await peer.next()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    peer.send('42\n');
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32600 } });
    peer.send('[{"jsonrpc":"2.0","id":1,"method":"hello"}]\n');
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('no batches') } });
    peer.send(Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32700 } });
    // Over the limit, sent in pieces: never parsed, one error for the whole frame.
    const big = Buffer.alloc(MAX_FRAME_BYTES + 1024, 'x'.charCodeAt(0));
    for (let i = 0; i < big.length; i += 256 * 1024) peer.send(big.subarray(i, i + 256 * 1024));
    peer.send('\n');
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -31001, message: `frame over ${MAX_FRAME_BYTES} bytes` } });
    // The same connection still works.
    peer.send(hello(7));
    expect(await peer.next()).toMatchObject({ id: 7, result: { protocol: 1, inbox: null } });
    peer.socket.destroy();
  });

  it('requires hello first, and refuses another protocol version by closing the connection', async () => {
    const peer = await rawPeer(d.socket);
    peer.send('{"jsonrpc":"2.0","id":1,"method":"approvals/list"}\n');
    expect(await peer.next()).toMatchObject({ id: 1, error: { code: -31002, message: 'say hello first' } });
    peer.send(hello(2, 2));
    expect(await peer.next()).toMatchObject({ id: 2, error: { code: -31003, message: 'protocol 2 is not supported; this daemon speaks 1' } });
    await peer.closed;
  });

  it('checks approval/open params field by field and names the first bad one', async () => {
    const peer = await rawPeer(d.socket);
    peer.send(hello(1));
    await peer.next();
    const send = (id: number, request: unknown) => peer.send(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'approval/open', params: { request } })}\n`);
    send(2, { ...approval('p1'), options: [] });
    expect(await peer.next()).toMatchObject({ id: 2, error: { code: -32602, message: expect.stringContaining('request.options') } });
    send(3, { ...approval('p1'), items: [{ item: 'x', decision: 'maybe', rules: [] }] });
    expect(await peer.next()).toMatchObject({ id: 3, error: { code: -32602, message: expect.stringContaining('request.items') } });
    send(4, { ...approval('p1'), deadline: 'soon' });
    expect(await peer.next()).toMatchObject({ id: 4, error: { code: -32602, message: expect.stringContaining('deadline') } });
    send(5, approval('p1'));
    expect(await peer.next()).toMatchObject({ id: 5, result: { id: expect.stringMatching(/-p1$/) } });
    send(6, approval('p1'));
    expect(await peer.next()).toMatchObject({ id: 6, error: { code: -31004 } });
    peer.send('{"jsonrpc":"2.0","id":7,"method":"no/such"}\n');
    expect(await peer.next()).toMatchObject({ id: 7, error: { code: -32601 } });
    peer.socket.destroy();
  });

  it('a bystander broker is unaffected by a peer that misbehaves and disconnects', async () => {
    const r = recorder();
    bystander.offer(offered(approval('calm')), r.callbacks);
    const peer = await rawPeer(d.socket);
    peer.send(hello(1));
    await peer.next();
    peer.send(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'approval/open', params: { request: approval('rude') } })}\n`);
    await peer.next();
    peer.send('{"broken\n\n\n');
    peer.socket.destroy();
    await peer.closed;
    // The misbehaving broker's approval is gone with it; the bystander's is still open and answerable.
    const list = await cli(d.home, ['approvals', 'list', '--json']);
    const ids = (JSON.parse(list.stdout) as { id: string }[]).map((a) => a.id);
    expect(ids.some((id) => id.endsWith('-rude'))).toBe(false);
    const calm = ids.find((id) => id.endsWith('-calm'))!;
    expect(calm).toBeDefined();
    expect(await cli(d.home, ['approvals', 'allow', calm])).toMatchObject({ code: 0, stdout: `allowed ${calm}: Allow\n` });
    expect(await r.settled).toEqual({ type: 'answer', answer: { type: 'selected', optionId: 'allow' }, via: 'terminal' });
    expect(bystander.connected).toBe(true);
  });

  it('a withdrawn approval leaves the daemon, and a late answer to it changes nothing', async () => {
    const r = recorder();
    const offer = bystander.offer(offered(approval('w1')), r.callbacks)!;
    const list = async () => (JSON.parse((await cli(d.home, ['approvals', 'list', '--json'])).stdout) as { id: string }[]).map((a) => a.id);
    const id = (await list()).find((x) => x.endsWith('-w1'))!;
    offer.withdraw({ type: 'answered', via: 'client' });
    const late = await cli(d.home, ['approvals', 'deny', id]);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/no open approval|already answered/);
    expect(await list()).not.toContain(id);
    expect(r.calls).toEqual([]);
  });
});
