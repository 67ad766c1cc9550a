/**
 * A descendant that left the agent's process group (`setsid`, as codex-acp runs its commands) is
 * ended with the agent: found in /proc when the agent is signalled, signalled with it, and gone
 * when endAgentGroup returns. Real processes (bash, setsid, sleep); Linux only.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { endAgentGroup, signalAgentTree } from '../../src/relay/process-group.js';
import { descendantsOutsideGroup, stillRunning, type SeenProcess } from '../../src/relay/process-tree.js';

describe.skipIf(process.platform !== 'linux')('process tree: descendants outside the agent group', () => {
  it('a setsid command of the agent is found, signalled with it, and gone once the group has ended', async () => {
    // Like spawnEarly: the agent leads a process group of its own.
    const agent = spawn('bash', ['-c', 'setsid sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    const exited = new Promise((resolve) => agent.on('exit', resolve));
    let strays: SeenProcess[] = [];
    for (let i = 0; i < 200 && strays.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      strays = descendantsOutsideGroup(agent.pid!);
    }
    try {
      expect(strays).toHaveLength(1);
      expect(stillRunning(strays[0]!)).toBe(true);
      signalAgentTree(agent, 'SIGTERM');
      await exited;
      await endAgentGroup(agent.pid, 1000);
      expect(stillRunning(strays[0]!)).toBe(false);
    } finally {
      for (const stray of strays) try { process.kill(stray.pid, 'SIGKILL'); } catch { /* gone */ }
    }
  });

  it('a process of the agent group itself is not a stray (the group signal reaches it)', async () => {
    const agent = spawn('bash', ['-c', 'sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      expect(descendantsOutsideGroup(agent.pid!)).toEqual([]);
    } finally {
      process.kill(-agent.pid!, 'SIGKILL');
    }
  });
});
