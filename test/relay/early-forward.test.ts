import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { forwardClientEarly } from '../../src/startup/early-forward.js';

function fakeChild() {
  const stdin = new PassThrough();
  const received: Buffer[] = [];
  stdin.on('data', (c: Buffer) => received.push(c));
  return { child: { stdin } as unknown as ChildProcess, received: () => Buffer.concat(received).toString() };
}

describe('forwarding the client before the relay has loaded', () => {
  it('stops at a mode switch (the relay must judge it): it and everything after wait for the relay', async () => {
    const client = new PassThrough();
    const { child, received } = fakeChild();
    const take = forwardClientEarly(client, child);
    const load = '{"id":1,"method":"session/load","params":{"sessionId":"s-old","cwd":"/w","mcpServers":[]}}\n';
    const setMode = '{"id":2,"method":"session/set_mode","params":{"sessionId":"s-old","modeId":"yolo"}}\n';
    client.write(`{"id":0,"method":"initialize"}\n${load}${setMode}{"id":3,"method":"session/prompt"}\n`);
    await turn();
    expect(received()).toBe(`{"id":0,"method":"initialize"}\n${load}`);
    client.write('{"id":4}\n');
    await turn();
    const handed = take();
    expect(received()).not.toContain('set_mode');
    expect(handed.rest.toString()).toBe(`${setMode}{"id":3,"method":"session/prompt"}\n`);
    // What came after the stop is still in the client's stream, for the relay.
    const after: Buffer[] = [];
    client.on('data', (c: Buffer) => after.push(c));
    await turn();
    expect(Buffer.concat(after).toString()).toBe('{"id":4}\n');
    // An escaped spelling stops it too.
    const other = new PassThrough();
    const second = fakeChild();
    forwardClientEarly(other, second.child);
    other.write('{"id":0}\n{"id":1,"method":"session\\/set_mode"}\n');
    await turn();
    expect(second.received()).toBe('{"id":0}\n');
  });

  it('forwards complete lines at once, keeps a partial one, and hands both over in order', async () => {
    const client = new PassThrough();
    const { child, received } = fakeChild();
    const take = forwardClientEarly(client, child);
    client.write('{"id":1,"method":"initialize"}\n{"id":2,"method":"session/new","params":{"cwd":"/w"}}\n{"id":3,');
    await turn();
    expect(received()).toBe('{"id":1,"method":"initialize"}\n{"id":2,"method":"session/new","params":{"cwd":"/w"}}\n');
    client.write('"method":"x"}\n{"partial');
    await turn();
    const handed = take();
    expect(handed.forwarded.map(String)).toEqual(['{"id":1,"method":"initialize"}\n', '{"id":2,"method":"session/new","params":{"cwd":"/w"}}\n', '{"id":3,"method":"x"}\n']);
    expect(handed.rest.toString()).toBe('{"partial');
    expect(handed.ended).toBe(false);
    // After the hand-over nothing more is forwarded by it.
    client.on('data', () => {});
    client.write('{"id":4}\n');
    await turn();
    expect(received()).not.toContain('"id":4');
  });

  it('reports a client that already ended, with its unterminated last line kept for the relay', async () => {
    const client = new PassThrough();
    const { child, received } = fakeChild();
    const take = forwardClientEarly(client, child);
    client.end('{"id":1}\n{"id":2}');
    await turn();
    await turn();
    const handed = take();
    expect(received()).toBe('{"id":1}\n');
    expect(handed).toMatchObject({ ended: true });
    expect(handed.rest.toString()).toBe('{"id":2}');
  });

  it('stops reading after 1 MiB, so memory stays bounded until the relay takes over; nothing is lost', async () => {
    const client = new PassThrough();
    const { child, received } = fakeChild();
    const take = forwardClientEarly(client, child);
    const line = `${'x'.repeat(64 * 1024 - 1)}\n`;
    for (let i = 0; i < 40; i++) client.write(line);
    await turn();
    const forwardedEarly = received().length;
    expect(forwardedEarly).toBeGreaterThanOrEqual(1024 * 1024 - line.length);
    expect(forwardedEarly).toBeLessThan(40 * line.length);
    const handed = take();
    const relayed: Buffer[] = [handed.rest];
    client.on('data', (c: Buffer) => relayed.push(c));
    await new Promise((r) => setTimeout(r, 50));
    expect(forwardedEarly + Buffer.concat(relayed).length).toBe(40 * line.length);
  });
});
