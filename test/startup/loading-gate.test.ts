import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadingGate, whenQuiet } from '../../src/startup/deferred-loading.js';

/** The relay's counters, driven by the test: `flow()` sends a chunk every 2 ms until `stop()`. */
function activity() {
  let traffic = 0;
  let held = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    traffic: () => traffic,
    held: () => held,
    flow() { timer = setInterval(() => { traffic++; }, 2); },
    stop() { clearInterval(timer); },
    hold() { held++; },
  };
}

function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  void promise.then(() => { done = true; });
  return () => done;
}

describe('the broker\'s own loading yields to the relay\'s lines', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('waits while either side keeps sending, and goes once both have been silent for a moment', async () => {
    const a = activity();
    a.flow();
    const quiet = settled(whenQuiet(a));
    await vi.advanceTimersByTimeAsync(500);
    expect(quiet()).toBe(false);
    a.stop();
    await vi.advanceTimersByTimeAsync(30);
    expect(quiet()).toBe(false); // silent, but not long enough for a client's turn-around
    await vi.advanceTimersByTimeAsync(30);
    expect(quiet()).toBe(true);
  });

  it('goes at once, traffic or not, when a request is held for the engine: loading is then the real work', async () => {
    const a = activity();
    a.hold();
    a.flow();
    const quiet = settled(whenQuiet(a));
    await vi.advanceTimersByTimeAsync(0);
    expect(quiet()).toBe(true);
    a.stop();
  });

  it('goes when a request is held in the middle of a stream', async () => {
    const a = activity();
    a.flow();
    const quiet = settled(whenQuiet(a));
    await vi.advanceTimersByTimeAsync(100);
    expect(quiet()).toBe(false);
    a.hold();
    await vi.advanceTimersByTimeAsync(3);
    expect(quiet()).toBe(true);
    a.stop();
  });

  it('with an early agent, opens only after the agent has spoken and the relay is quiet', async () => {
    const a = activity();
    const gate = loadingGate(true, a);
    const opened = settled(gate.opened);
    const child = Object.assign(new EventEmitter(), { stdout: new EventEmitter() }) as unknown as ChildProcess;
    gate.openWhenSpoken(child);
    await vi.advanceTimersByTimeAsync(50);
    expect(opened()).toBe(false); // the agent has not written yet
    a.flow();
    child.stdout!.emit('data', Buffer.from('{}\n'));
    await vi.advanceTimersByTimeAsync(200);
    expect(opened()).toBe(false); // spoken, but lines keep coming
    a.stop();
    await vi.advanceTimersByTimeAsync(60);
    expect(opened()).toBe(true);
  });
});
