/** Behaviour every GrantStore shares; run against the memory store and the file store. */
import { describe, expect, it } from 'vitest';
import { FileGrantStore } from '../../src/grants/file-store.js';
import type { GrantStore } from '../../src/grants/store.js';
import { createMemoryGrantStore, InvalidGrantError } from '../../src/grants/store.js';
import { commandGrant, fakeDeps, PROJECT, useTempDirs } from './helpers.js';

type Deps = ReturnType<typeof fakeDeps>;
const tempDir = useTempDirs();

const implementations: [string, (deps: Deps) => GrantStore][] = [
  ['memory store', (deps) => createMemoryGrantStore(deps)],
  ['file store', (deps) => new FileGrantStore({ dir: tempDir(), ...deps })],
];

describe.each(implementations)('%s', (_name, open) => {
  it('adds, lists and revokes grants', () => {
    const deps = fakeDeps();
    const store = open(deps);
    expect(store.list()).toEqual([]);
    const npmTest = store.add(commandGrant('npm test'));
    const lint = store.add(commandGrant('npm run lint', { decision: 'deny', source: 'desktop' }));
    expect(npmTest).toEqual({
      id: 'g1',
      decision: 'allow',
      subject: { type: 'command', argv: ['npm', 'test'], prefix: false },
      scope: { type: 'project', dir: PROJECT },
      createdAt: '2025-06-01T12:00:00.000Z',
      source: 'client',
      label: '`npm test` in project-x',
    });
    expect(store.list()).toEqual([npmTest, lint]);
    expect(store.revoke('g1')).toBe(true);
    expect(store.revoke('g1')).toBe(false);
    expect(store.list()).toEqual([lint]);
  });

  it('refreshes a grant added again instead of duplicating it, keeping its id', () => {
    const deps = fakeDeps();
    const store = open(deps);
    store.add(commandGrant('npm test'));
    deps.advance(60_000);
    const again = store.add(commandGrant('npm test', { source: 'web' }));
    expect(store.list()).toEqual([again]);
    expect(again).toMatchObject({ id: 'g1', source: 'web', createdAt: '2025-06-01T12:01:00.000Z' });
  });

  it('replaces a grant of the opposite decision for the same subject and scope', () => {
    const store = open(fakeDeps());
    store.add(commandGrant('npm test'));
    const deny = store.add(commandGrant('npm test', { decision: 'deny' }));
    expect(store.list()).toEqual([deny]);
    expect(deny.id).not.toBe('g1');
  });

  it('keeps grants that differ in scope, prefix or agent apart', () => {
    const store = open(fakeDeps());
    store.add(commandGrant('npm test'));
    store.add(commandGrant('npm test', { scope: { type: 'global' } }));
    store.add(commandGrant('npm test', { scope: { type: 'project', dir: '/home/dev/other' } }));
    store.add(commandGrant('npm test', { subject: { type: 'command', argv: ['npm', 'test'], prefix: true } }));
    store.add(commandGrant('npm test', { agent: 'gemini' }));
    expect(store.list()).toHaveLength(5);
  });

  it('clears everything, or one project including its subdirectories', () => {
    const store = open(fakeDeps());
    store.add(commandGrant('npm test'));
    store.add(commandGrant('npm test', { scope: { type: 'project', dir: `${PROJECT}/packages/a` } }));
    store.add(commandGrant('npm test', { scope: { type: 'project', dir: `${PROJECT}-fork` } }));
    store.add(commandGrant('npm test', { scope: { type: 'global' } }));
    expect(store.clear({ projectDir: PROJECT })).toBe(2);
    expect(store.list().map((g) => g.scope)).toEqual([{ type: 'project', dir: `${PROJECT}-fork` }, { type: 'global' }]);
    expect(store.clear()).toBe(2);
    expect(store.list()).toEqual([]);
  });

  it('hides expired grants and prunes them on the next write', () => {
    const deps = fakeDeps();
    const store = open(deps);
    store.add(commandGrant('npm test', { expiresAt: '2025-06-01T13:00:00Z' }));
    store.add(commandGrant('git status'));
    expect(store.list()).toHaveLength(2);
    deps.advance(60 * 60_000);
    expect(store.list().map((g) => g.label)).toEqual(['`git status` in project-x']);
    expect(store.clear()).toBe(1); // the expired grant is not counted as cleared
  });

  it('normalises url hosts and rejects malformed input', () => {
    const store = open(fakeDeps());
    const url = store.add({ decision: 'allow', subject: { type: 'url', host: 'Example.COM' }, scope: { type: 'global' }, source: 'client' });
    expect(url.subject).toEqual({ type: 'url', host: 'example.com' });
    expect(() => store.add({ ...commandGrant('x'), subject: { type: 'command', argv: [], prefix: true } })).toThrow(InvalidGrantError);
    expect(() => store.add({ ...commandGrant('x'), subject: { type: 'path', path: 'relative/x', access: 'read' } })).toThrow(InvalidGrantError);
    expect(() => store.add({ ...commandGrant('x'), scope: { type: 'project', dir: 'relative' } })).toThrow(InvalidGrantError);
  });
});
