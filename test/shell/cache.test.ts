import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createShellAnalyzer, type CommandAnalysis, type ShellContext } from '../../src/shell/index.js';

describe('analysis cache', () => {
  it('returns the same frozen result for the same line, cwd and home', async () => {
    const analyzer = await createShellAnalyzer({ cacheSize: 10 });
    const first = analyzer.analyze('cd sub && echo hi > f', { cwd: '/w', home: '/h' });
    const second = analyzer.analyze('cd sub && echo hi > f', { cwd: '/w', home: '/h' });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.commands)).toBe(true);
    expect(Object.isFrozen(first.commands[0])).toBe(true);
    expect(Object.isFrozen(first.commands[0]!.argv)).toBe(true);
    expect(Object.isFrozen(first.redirections[0])).toBe(true);
  });

  it('callers cannot corrupt a cached result', async () => {
    const analyzer = await createShellAnalyzer();
    const context = { cwd: '/w', home: '/h' };
    // A plain line seen once is its caller's alone (not kept, not frozen): changing it changes nothing else.
    const once = analyzer.analyze('npm test', context);
    (once.commands[0]!.argv as string[])[0] = 'rm';
    const result = analyzer.analyze('npm test', context);
    expect(result.commands[0]!.argv).toEqual(['npm', 'test']);
    expect(analyzer.analyze('npm test', context)).toBe(result);
    expect(() => (result.commands as unknown as unknown[]).push({})).toThrow();
    expect(() => ((result.commands[0]!.argv as string[])[0] = 'rm')).toThrow();
    expect(() => ((result.unresolvable as string[]).length = 0)).toThrow();
    expect(analyzer.analyze('npm test', context).commands[0]!.argv).toEqual(['npm', 'test']);
  });

  it('keys on cwd and home too', async () => {
    const analyzer = await createShellAnalyzer();
    expect(analyzer.analyze('echo > f', { cwd: '/a', home: '/h' }).redirections[0]!.path).toBe('/a/f');
    expect(analyzer.analyze('echo > f', { cwd: '/b', home: '/h' }).redirections[0]!.path).toBe('/b/f');
    expect(analyzer.analyze('ls ~', { cwd: '/a', home: '/h1' }).commands[0]!.argv).toEqual(['ls', '/h1']);
    expect(analyzer.analyze('ls ~', { cwd: '/a', home: '/h2' }).commands[0]!.argv).toEqual(['ls', '/h2']);
  });

  it('stays correct when entries are evicted', async () => {
    const analyzer = await createShellAnalyzer({ cacheSize: 2 });
    for (let i = 0; i < 10; i++) {
      expect(analyzer.analyze(`echo ${i}`, { cwd: '/w', home: '/h' }).commands[0]!.argv).toEqual(['echo', String(i)]);
    }
    expect(analyzer.analyze('echo 0', { cwd: '/w', home: '/h' }).commands[0]!.argv).toEqual(['echo', '0']);
  });

  it('works without a cache', async () => {
    const analyzer = await createShellAnalyzer({ cacheSize: 0 });
    const result = analyzer.analyze('npm test', { cwd: '/w', home: '/h' });
    const again = analyzer.analyze('npm test', { cwd: '/w', home: '/h' });
    expect(again).toEqual(result);
    expect(again).not.toBe(result); // nothing kept, so nothing shared (and nothing frozen)
  });

  it('caches a plain line (fast path) when it comes back, a parsed line at once', async () => {
    const analyzer = await createShellAnalyzer({ cacheSize: 10 });
    const context = { cwd: '/w', home: '/h' };
    const plain = [1, 2, 3].map(() => analyzer.analyze('npm test && git status', context));
    expect(plain[0]).toEqual(plain[1]);
    expect(plain[2]).toBe(plain[1]);
    const parsed = [1, 2].map(() => analyzer.analyze('echo "$(date)" > f', context));
    expect(parsed[1]).toBe(parsed[0]);
    // What is kept is frozen; the first sighting of a plain line was not kept.
    expect(Object.isFrozen(plain[0]!.commands[0])).toBe(false);
    for (const result of [plain[1]!, ...parsed]) expect(Object.isFrozen(result.commands[0])).toBe(true);
  });

  it('answers every sequence of calls as an analyzer without a cache does (the last entry used, eviction, one-offs)', async () => {
    const uncached = await createShellAnalyzer({ cacheSize: 0 });
    const lines = ['npm test', 'npm test && git status | head', 'cd sub && echo hi > f', 'echo $(date) > out.txt', 'ls ~', 'cd .. && rm -rf x'];
    const contexts: ShellContext[] = [
      { cwd: '/w', home: '/h' }, { cwd: '/w/sub', home: '/h' }, { cwd: '/w', home: '/h2' }, { cwd: '/w', home: '/h', cwdUnknown: true },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: lines.length - 1 }), fc.integer({ min: 0, max: contexts.length - 1 })), { maxLength: 40 }),
        async (cacheSize, calls) => {
          const cached = await createShellAnalyzer({ cacheSize });
          const given = new Set<CommandAnalysis>();
          for (const [l, c] of calls) {
            // Fresh strings, as the broker gets them from each request.
            const line = [...lines[l]!].join('');
            const context = { ...contexts[c]! };
            const result = cached.analyze(line, context);
            expect(result).toEqual(uncached.analyze(line, context));
            // A result handed out twice is shared: it must be frozen.
            if (given.has(result)) expect(Object.isFrozen(result) && Object.isFrozen(result.commands)).toBe(true);
            given.add(result);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
