import { describe, expect, it } from 'vitest';
import type { ExtractContext } from '../../src/facts/context.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { finalCwdsOf } from '../../src/facts/shell-call.js';
import { mergeToolCall, TOO_MANY_DIRECTORY_HINTS, type ToolCallState } from '../../src/facts/tool-call.js';
import { shell } from '../helpers/harness.js';

const WS = '/w';

async function facts(update: Record<string, unknown> | ToolCallState, extra: Partial<ExtractContext> = {}) {
  const call = 'directoryHints' in update ? update as ToolCallState : mergeToolCall(undefined, { toolCallId: 't', ...update });
  return extractFacts(call, { workspace: WS, home: '/h', agent: undefined, shell: await shell(), canonicalize: lexicalOnly, fileExists: () => false, ...extra });
}
const writes = (f: Awaited<ReturnType<typeof facts>>) => f.paths.filter((p) => p.access === 'write').map((p) => p.path);
const geminiCall = (title: string, explanation: string) => ({
  kind: 'execute', title, locations: [], content: [{ type: 'content', content: { type: 'text', text: explanation } }],
});

describe('the directory a shell call starts in', () => {
  it('reads codex cwd (absolute or relative to the session cwd), codex workdir, qwen directory, gemini dir_path', async () => {
    for (const hint of [{ cwd: '/w/sub' }, { cwd: 'sub' }, { workdir: 'sub' }, { directory: 'sub' }, { dir_path: './sub' }]) {
      const f = await facts({ kind: 'execute', rawInput: { command: 'echo hi > out.txt', ...hint } });
      expect(writes(f)).toEqual(['/w/sub/out.txt']);
      expect(f.unresolvable).toEqual([]);
    }
  });

  it('absent, null and empty parameters mean the workspace', async () => {
    for (const hint of [{}, { cwd: null }, { workdir: '' }]) {
      expect(writes(await facts({ kind: 'execute', rawInput: { command: 'echo hi > out.txt', ...hint } }))).toEqual(['/w/out.txt']);
    }
  });

  it('the directory is not a path item of a shell call, but stays the searched directory of a search tool', async () => {
    const run = await facts({ kind: 'execute', rawInput: { command: 'echo hi', directory: '/w/sub', dir_path: '/w/sub' } });
    expect(run.paths).toEqual([]);
    const list = await facts({ kind: 'search', rawInput: { dir_path: '/w/sub' } });
    expect(list.paths).toEqual([{ path: '/w/sub', access: 'read', origin: 'rawInput' }]);
  });

  it('a parameter that is not a string, or two that differ, leave relative paths unresolvable; absolute ones still resolve', async () => {
    for (const rawInput of [{ cwd: 42 }, { dir_path: ['sub'] }, { cwd: '/w/a', workdir: 'b' }]) {
      const f = await facts({ kind: 'execute', rawInput: { command: 'echo hi > /etc/x', ...rawInput } });
      expect(f.unresolvable.join('\n')).toContain("the shell's working directory is not known");
      expect(writes(f)).toEqual(['/etc/x']);
    }
    const same = await facts({ kind: 'execute', rawInput: { command: 'echo hi > x', cwd: '/w/a', workdir: 'a' } });
    expect(same.unresolvable).toEqual([]);
  });

  it('a line that starts from an absolute cd does not depend on an unknown start', async () => {
    const f = await facts({ kind: 'execute', rawInput: { command: 'cd /w/sub && echo hi > out.txt', cwd: 7 } });
    expect(f.unresolvable).toEqual([]);
    expect(writes(f)).toEqual(['/w/sub/out.txt']);
    expect(f.shell?.finalCwd).toBe('/w/sub');
  });

  it('reads the directory gemini-cli shows in its explanation, only when exactly one reading exists', async () => {
    const cases: [string, string[] | 'unresolvable'][] = [
      ['[in sub]', ['/w/sub/out.txt']],
      ['[in sub] (Write hello)', ['/w/sub/out.txt']],
      ['[in /w/a b] (x) (y)', ['/w/a b/out.txt']],
      ['[in a(b] (x)', ['/w/a(b/out.txt']],
      // dir_path `sub] (Write hello) [background` without a description reads the same.
      ['[in sub] (Write hello) [background]', 'unresolvable'],
      ['[in a] (b] [background]', 'unresolvable'],
      [`[current working directory /elsewhere] (Write)`, ['/w/out.txt']],
      ['[in sub] (x] (y)', 'unresolvable'],
      // The order is directory, description, background: this one has a single reading.
      ['[in sub] [background] (x)', ['/w/sub] [background/out.txt']],
      ['[in a] b]', ['/w/a] b/out.txt']],
      ['[in sub] trailing text', 'unresolvable'],
    ];
    for (const [explanation, expected] of cases) {
      const f = await facts(geminiCall('echo hi > out.txt', explanation));
      if (expected === 'unresolvable') expect(f.unresolvable.join('\n'), explanation).toContain('cannot be read with certainty');
      else expect({ explanation, writes: writes(f), unresolvable: f.unresolvable }).toEqual({ explanation, writes: expected, unresolvable: [] });
    }
  });

  it('a gemini-cli call that shows no directory is unresolvable; another agent\'s title-only call starts in the workspace', async () => {
    const bare = { kind: 'execute', title: 'echo hi > out.txt', locations: [], content: [] };
    expect((await facts(bare, { agent: 'gemini-cli' })).unresolvable.join('\n')).toContain('did not say which directory');
    expect((await facts(bare, { agent: 'other' })).unresolvable).toEqual([]);
  });

  it('a title is the command exactly as bash gets it: backquotes stay', async () => {
    const f = await facts(geminiCall('`cat cmd.txt`', '[current working directory /w]'));
    expect(f.shellLine).toBe('`cat cmd.txt`');
    expect(f.unresolvable.length).toBeGreaterThan(0);
    const echo = await facts(geminiCall('echo `id`', '[current working directory /w]'));
    expect(echo.commands.map((c) => c.program)).toContain('id');
  });

  it('the session\'s persistent shell directories are where a call without its own directory starts', async () => {
    expect(writes(await facts({ kind: 'execute', rawInput: { command: 'echo > x' } }, { shellCwd: ['/w/sub'] }))).toEqual(['/w/sub/x']);
    const both = await facts({ kind: 'execute', rawInput: { command: 'echo > x && cd a' } }, { shellCwd: ['/w/sub', '/w'] });
    expect(writes(both)).toEqual(['/w/sub/x', '/w/x']);
    expect(both.shell?.finalCwd).toBeNull();
    expect(finalCwdsOf(both.shell!)).toEqual(['/w/sub/a', '/w/a']);
    const unknown = await facts({ kind: 'execute', rawInput: { command: 'echo > x' } }, { shellCwd: null });
    expect(unknown.unresolvable.join('\n')).toContain('an earlier command of this session moved its shell');
  });
});

describe('merging what the agent announced before', () => {
  it('an empty locations list does not erase earlier locations; a non-empty one replaces them', () => {
    const announced = mergeToolCall(undefined, { toolCallId: 't', locations: [{ path: '/w/a' }] });
    expect(mergeToolCall(announced, { toolCallId: 't', locations: [] }).locations).toEqual([{ path: '/w/a' }]);
    expect(mergeToolCall(announced, { toolCallId: 't', locations: [{ path: '/w/b' }] }).locations).toEqual([{ path: '/w/b' }]);
    expect(mergeToolCall(announced, { toolCallId: 't', locations: null }).locations).toBeNull();
  });

  it('keeps every directory any rawInput of the call named, and marks when there were too many to keep', () => {
    let call = mergeToolCall(undefined, { toolCallId: 't', rawInput: { command: 'x', workdir: 'sub' } });
    call = mergeToolCall(call, { toolCallId: 't', rawInput: { command: 'x', cwd: '/w/sub' } });
    call = mergeToolCall(call, { toolCallId: 't', rawInput: { command: 'x', cwd: '/w/sub' } });
    expect(call.directoryHints).toEqual(['sub', '/w/sub']);
    for (let i = 0; i < 10; i++) call = mergeToolCall(call, { toolCallId: 't', rawInput: { cwd: `/d${i}` } });
    expect(call.directoryHints).toHaveLength(9);
    expect(call.directoryHints?.at(-1)).toBe(TOO_MANY_DIRECTORY_HINTS);
  });
});

describe('what the analysis says about the shell\'s directory (finalCwd, an unknown start)', () => {
  it('finalCwd follows top-level cds only', async () => {
    const analyzer = await shell();
    const final = (line: string) => analyzer.analyze(line, { cwd: '/w', home: '/h' }).finalCwd;
    expect(final('cd sub && true')).toBe('/w/sub');
    expect(final('cd sub; cd ../other')).toBe('/w/other');
    expect(final('true')).toBe('/w');
    for (const line of ['(cd sub)', 'cd sub | cat', 'cd sub &', 'bash -c "cd sub"']) expect(final(line), line).toBe('/w');
    for (const line of ['cd "$X"', 'true || cd sub', 'cd -']) expect(final(line), line).toBeNull();
  });

  it('from an unknown start, only what follows an absolute cd is resolvable', async () => {
    const analyzer = await shell();
    const unknownStart = (line: string) => analyzer.analyze(line, { cwd: '/w', home: '/h', cwdUnknown: true });
    expect(unknownStart('true').unresolvable.length).toBeGreaterThan(0);
    expect(unknownStart('cd rel && true')).toMatchObject({ finalCwd: null });
    expect(unknownStart('cd rel && true').unresolvable.length).toBeGreaterThan(0);
    expect(unknownStart('cd /abs && echo x > out.txt')).toMatchObject({ finalCwd: '/abs', unresolvable: [], redirections: [{ path: '/abs/out.txt' }] });
    expect(unknownStart('cd && true')).toMatchObject({ finalCwd: '/h', unresolvable: [] });
    // The same line from a known start is another analysis (the cache keeps them apart).
    expect(analyzer.analyze('true', { cwd: '/w', home: '/h' }).unresolvable).toEqual([]);
  });
});
