import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_BYTE_LIMIT, Terminals } from '../../src/exec/terminals.js';
import { tempDir } from '../helpers/cli.js';

// exec's terminal/* methods with real processes; the process table is read from /proc.
const open: Terminals[] = [];
afterEach(async () => { for (const t of open.splice(0)) await t.closeAll(); });

function terminals(cwd = tempDir()): Terminals {
  const t = new Terminals({ cwd });
  open.push(t);
  return t;
}

/** Running (not gone, not a zombie). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function until<T>(probe: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `name PID` lines the command printed. */
function pids(output: string, names: readonly string[]): Record<string, number> | undefined {
  const found: Record<string, number> = {};
  for (const name of names) {
    const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(output);
    if (!match) return undefined;
    found[name] = Number(match[1]);
  }
  return found;
}

describe.runIf(process.platform === 'linux')('terminals', () => {
  it('a command line runs in the shell, in cwd, with env added; exit code and output are reported', async () => {
    const dir = tempDir();
    const t = terminals();
    const id = t.create({ command: 'pwd; echo "$ACP_TEST_VAR"; echo oops >&2; exit 3', cwd: dir, env: [{ name: 'ACP_TEST_VAR', value: 'from env' }] });
    expect(await t.waitForExit(id)).toEqual({ exitCode: 3, signal: null });
    expect(t.output(id)).toEqual({ output: `${dir}\nfrom env\noops\n`, truncated: false, exitStatus: { exitCode: 3, signal: null } });
  });

  it('a command with args runs as given, without a shell', async () => {
    const t = terminals();
    const id = t.create({ command: 'printf', args: ['%s|', 'a b', '$HOME', '`id`'] });
    await t.waitForExit(id);
    expect(t.output(id).output).toBe('a b|$HOME|`id`|');
  });

  it('10 MB of output is cut from the beginning at the byte limit, at a character boundary, and says so', async () => {
    const t = terminals();
    // "é\n" is 3 bytes: a limit that is not a multiple of 3 makes the cut fall inside a character.
    const limit = 1_000_001;
    const id = t.create({ command: 'yes é | head -c 10000002; printf END', outputByteLimit: limit });
    await t.waitForExit(id);
    const { output, truncated } = t.output(id);
    expect(truncated).toBe(true);
    const bytes = Buffer.byteLength(output);
    expect(bytes).toBeLessThanOrEqual(limit);
    expect(bytes).toBeGreaterThan(limit - 4);
    expect(output).not.toContain('\uFFFD');
    expect(output.endsWith('é\nEND')).toBe(true);
    expect(output.replace(/é\n/g, '')).toMatch(/^\n?END$/);
    // Within the limit: nothing is cut.
    const small = t.create({ command: 'printf 0123456789', outputByteLimit: 10 });
    await t.waitForExit(small);
    expect(t.output(small)).toMatchObject({ output: '0123456789', truncated: false });
    expect(DEFAULT_OUTPUT_BYTE_LIMIT).toBeGreaterThanOrEqual(1024 * 1024);
  });

  it('kill ends the whole tree — a grandchild and a child that left the group — and the terminal stays readable', async () => {
    const t = terminals();
    const id = t.create({
      command: 'echo leader $$; sh -c \'sleep 300 & echo grandchild $!; wait\' & setsid sleep 301 & echo stray $!; wait',
    });
    const found = await until(() => pids(t.output(id).output, ['leader', 'grandchild', 'stray']));
    for (const pid of Object.values(found)) expect(running(pid)).toBe(true);
    t.kill(id);
    expect(await t.waitForExit(id)).toEqual({ exitCode: null, signal: 'SIGKILL' });
    await until(() => (Object.values(found).some(running) ? undefined : true), 3000);
    expect(t.output(id).exitStatus).toEqual({ exitCode: null, signal: 'SIGKILL' });
  });

  it('release kills what still runs and forgets the terminal', async () => {
    const t = terminals();
    const id = t.create({ command: 'echo leader $$; sleep 300 & echo child $!; wait' });
    const found = await until(() => pids(t.output(id).output, ['leader', 'child']));
    t.release(id);
    await until(() => (Object.values(found).some(running) ? undefined : true), 3000);
    expect(() => t.output(id)).toThrow(expect.objectContaining({ code: -32002 }));
  });

  it('closeAll (the end of exec) leaves nothing running, a background child of a finished command included', async () => {
    const t = terminals();
    const a = t.create({ command: 'echo leader $$; sleep 300 & echo child $!; wait' });
    const b = t.create({ command: '(sleep 302 & echo orphan $!) ; echo done' });
    const first = await until(() => pids(t.output(a).output, ['leader', 'child']));
    await t.waitForExit(b);
    const orphan = await until(() => pids(t.output(b).output, ['orphan']));
    expect(running(orphan.orphan!)).toBe(true);
    await t.closeAll();
    for (const pid of [...Object.values(first), orphan.orphan!]) expect(running(pid)).toBe(false);
    expect(() => t.create({ command: 'true' })).toThrow(/ending/);
  });

  it('a program that does not exist exits 127 with a message, and a relative cwd is refused', async () => {
    const t = terminals();
    const id = t.create({ command: '/nonexistent/acp-broker-program', args: ['x'] });
    expect(await t.waitForExit(id)).toEqual({ exitCode: 127, signal: null });
    expect(t.output(id).output).toContain('cannot start /nonexistent/acp-broker-program');
    expect(() => t.create({ command: 'true', cwd: 'relative/dir' })).toThrow(expect.objectContaining({ code: -32602 }));
  });
});
