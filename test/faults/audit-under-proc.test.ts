import { describe, expect, it } from 'vitest';
import { killQuietly, startBroker } from './driver.js';

describe('--audit under a missing /proc directory', () => {
  it('starts, warns loudly and keeps deciding', async () => {
    const run = startBroker({ args: ['--audit', '/proc/forbidden/acp-broker/audit.jsonl'] });
    const timer = setTimeout(() => killQuietly(run.child.pid), 15_000);
    try {
      await run.report('hello');
      run.child.stdin.end();
      expect((await run.exit).code).toBe(0);
      expect(run.stderr()).toMatch(/WARNING.*audit/);
    } finally {
      clearTimeout(timer);
      killQuietly(run.child.pid);
    }
  }, 30_000);
});
