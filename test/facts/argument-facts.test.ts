import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PathFact } from '../../src/core/facts.js';
import { MAX_EXISTENCE_CHECKS } from '../../src/facts/argument-facts.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { diskFileExists } from '../../src/platform/file-exists.js';
import type { ShellAnalyzer } from '../../src/shell/types.js';
import { shell } from '../helpers/harness.js';

const WS = '/w';
const HOME = '/home/u';
let analyzer: ShellAnalyzer;
beforeAll(async () => { analyzer = await shell(); });

function factsOf(command: string, existing: readonly string[] = [], checked: string[] = []) {
  return extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command } }, {
    workspace: WS, home: HOME, agent: undefined, shell: analyzer, canonicalize: lexicalOnly,
    fileExists: (path) => {
      checked.push(path);
      // The paths asked keep their `..` (the kernel resolves it): this fake file system has no links.
      return existing.includes(posix.normalize(path));
    },
  });
}

const pathsOf = (command: string, existing: readonly string[] = []): PathFact[] => [...factsOf(command, existing).paths];

describe('path facts from a shell line', () => {
  it('file arguments are read/write/delete facts of origin argument; redirects keep origin redirect', () => {
    expect(pathsOf('cat .env > out')).toEqual([
      { path: '/w/out', access: 'write', origin: 'redirect' },
      { path: '/w/.env', access: 'read', origin: 'argument' },
    ]);
    expect(pathsOf('rm -f a')).toEqual([{ path: '/w/a', access: 'delete', origin: 'argument' }]);
  });

  it('a glob target or argument is a glob fact', () => {
    expect(pathsOf('echo x >> .en[v]')).toEqual([{ path: '/w/.en[v]', access: 'write', origin: 'redirect', glob: true }]);
    expect(pathsOf('cat .en?')).toEqual([{ path: '/w/.en?', access: 'read', origin: 'argument', glob: true }]);
  });

  it('an argument of an unmodelled program that names an existing file is a deny-only read', () => {
    expect(pathsOf('python3 -c pass .env', ['/w/.env'])).toEqual([{ path: '/w/.env', access: 'read', origin: 'argument', denyOnly: true }]);
    expect(pathsOf('node x.js --config=.env', ['/w/.env'])).toEqual([{ path: '/w/.env', access: 'read', origin: 'argument', denyOnly: true }]);
    expect(pathsOf('cd sub && make FILE=../.env', ['/w/.env'])).toEqual([{ path: '/w/.env', access: 'read', origin: 'argument', denyOnly: true }]);
    expect(pathsOf('python3 -c pass .env')).toEqual([]); // does not exist: nothing
  });

  it('modelled programs get no deny-only facts; git (partly modelled) does', () => {
    const checked: string[] = [];
    factsOf('grep -n .env src/a.ts && echo .env && ls .env', ['/w/.env'], checked);
    expect(checked).toEqual([]);
    expect(pathsOf('git add .env', ['/w/.env'])).toEqual([{ path: '/w/.env', access: 'read', origin: 'argument', denyOnly: true }]);
  });

  it('a deny-only fact adds nothing beside an equal modelled one', () => {
    expect(pathsOf('git show HEAD:.env', ['/w/.env'])).toEqual([{ path: '/w/.env', access: 'read', origin: 'argument' }]);
  });

  it('a glob argument of an unmodelled program is a deny-only glob fact, after the facts every rule sees', () => {
    expect(pathsOf('python3 x.py .en?')).toEqual([{ path: '/w/.en?', access: 'read', origin: 'argument', glob: true, denyOnly: true }]);
    expect(pathsOf('python3 x.py src/*.ts; cat src/*.ts')).toEqual([{ path: '/w/src/*.ts', access: 'read', origin: 'argument', glob: true }]);
  });

  it('option-looking words, URLs and expansions are not checked', () => {
    const checked: string[] = [];
    factsOf('node -v https://x.example/a $X/y --flag', [], checked);
    expect(checked).toEqual([]);
  });

  it('checks are capped per call; past the cap the call is unresolvable', () => {
    const checked: string[] = [];
    const words = Array.from({ length: MAX_EXISTENCE_CHECKS + 5 }, (_, i) => `w${i}`).join(' ');
    const facts = factsOf(`python3 ${words} .env`, ['/w/.env'], checked);
    expect(checked.length).toBe(MAX_EXISTENCE_CHECKS);
    expect(facts.unresolvable.join()).toMatch(/more than \d+ arguments/);
  });
});

describe('diskFileExists', () => {
  it('sees files, directories and dangling links; not missing paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'exists-'));
    writeFileSync(join(dir, 'f'), 'x');
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    const exists = diskFileExists();
    expect([exists(join(dir, 'f')), exists(dir), exists(join(dir, 'dangling')), exists(join(dir, 'missing')), exists(join(dir, 'f', 'under-a-file'))])
      .toEqual([true, true, true, false, false]);
  });
});
