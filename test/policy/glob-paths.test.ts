import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/core/facts.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicyText } from '../../src/policy/load.js';
import { accepts } from '../../src/policy/glob-automaton.js';
import { bashComponentRegExp, bashGlobNfa } from '../../src/policy/glob-bash.js';
import { globMayMatch, globPatternWitness, globWithin } from '../../src/policy/glob-paths.js';
import { policyPatternNfa } from '../../src/policy/glob-pattern.js';

/** An independent backtracking matcher for one bash file name, with dotglob: the brute-force oracle. */
function bashNameMatches(name: string, pattern: string): boolean {
  const go = (n: number, p: number): boolean => {
    if (p === pattern.length) return n === name.length;
    const ch = pattern[p]!;
    if (ch === '*') return go(n, p + 1) || (n < name.length && go(n + 1, p));
    if (n === name.length) return false;
    if (ch === '?') return go(n + 1, p + 1);
    if (ch === '[') {
      const close = pattern.indexOf(']', p + 2);
      if (close !== -1) {
        let body = pattern.slice(p + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        return body.includes(name[n]!) !== negated && go(n + 1, close + 1);
      }
    }
    return ch === name[n] && go(n + 1, p + 1);
  };
  return go(0, 0);
}

function bashPathMatches(path: string, glob: string): boolean {
  const names = path.split('/');
  const parts = glob.split('/');
  return names.length === parts.length && names.every((name, i) => bashNameMatches(name, parts[i]!));
}

function policyMatches(path: string, pattern: string): boolean {
  const dirPrefix = pattern.endsWith('/**') ? pattern.slice(0, -3) : undefined;
  const exact = dirPrefix !== undefined && !/[*?[\]{}]/.test(dirPrefix) && path === dirPrefix;
  return exact || new Minimatch(pattern, { dot: true, nocomment: true, nonegate: true }).match(path);
}

const NAMES = ['a', 'b', '.a', 'a.', 'ab', 'ba', 'bb', 'aa', '.b', '..a'];
const PATHS: string[] = [];
for (const x of NAMES) {
  PATHS.push(`/${x}`);
  for (const y of NAMES) {
    PATHS.push(`/${x}/${y}`);
    for (const z of NAMES) PATHS.push(`/${x}/${y}/${z}`);
  }
}

// Path facts are normalised: no `.` or `..` component is ever written literally.
const bashComponent = fc.array(fc.constantFrom('a', 'b', '.', '*', '?', '[ab]', '[!a]', '[.a]'), { minLength: 1, maxLength: 3 })
  // `**` is deliberately widened (zsh): tested on its own below.
  .map((t) => t.join('')).filter((c) => c !== '.' && c !== '..' && !c.includes('**'));
const bashGlob = fc.array(bashComponent, { minLength: 1, maxLength: 3 }).map((c) => `/${c.join('/')}`);
const patternComponent = fc.oneof(
  fc.constant('**'),
  fc.array(fc.constantFrom('a', 'b', '.', '*', '?', '[ab]', '[!a]', '{a,b}', '{.a,b*}'), { minLength: 1, maxLength: 3 }).map((t) => t.join('')),
);
const policyPattern = fc.array(patternComponent.filter((c) => c !== '.' && c !== '..'), { minLength: 1, maxLength: 3 }).map((c) => `/${c.join('/')}`);

describe('bash glob × policy pattern intersection', () => {
  it('finds a common path exactly when brute force over small paths does', () => {
    fc.assert(fc.property(bashGlob, policyPattern, (glob, pattern) => {
      const brute = PATHS.find((path) => bashPathMatches(path, glob) && policyMatches(path, pattern));
      const witness = globPatternWitness(glob, pattern);
      if (brute !== undefined) expect(witness, `${glob} ∩ ${pattern} ∋ ${brute}`).toBeDefined();
      // No file is named ``, `.` or `..`; the automaton may still say so (matching more is safe).
      if (witness !== undefined && !witness.split('/').slice(1).some((name) => name === '' || name === '.' || name === '..')) {
        expect(bashPathMatches(witness, glob), `bash ${glob} ∋ ${witness}`).toBe(true);
        expect(policyMatches(witness, pattern), `pattern ${pattern} ∋ ${witness}`).toBe(true);
      }
    }), { numRuns: 400 });
  });

  it('the bash automaton and the expansion regex agree with the oracle', () => {
    fc.assert(fc.property(bashComponent, fc.constantFrom(...NAMES), (component, name) => {
      expect(accepts(bashGlobNfa(`/${component}`), `/${name}`)).toBe(bashNameMatches(name, component));
      expect(bashComponentRegExp(component).test(name)).toBe(bashNameMatches(name, component));
    }), { numRuns: 1000 });
  });

  it('policy patterns as automata agree with minimatch', () => {
    fc.assert(fc.property(policyPattern, fc.constantFrom(...PATHS), (pattern, path) => {
      expect(accepts(policyPatternNfa(pattern), path), `${pattern} ${path}`).toBe(policyMatches(path, pattern));
    }), { numRuns: 2000 });
  });

  it('the bundled policy shapes', () => {
    expect(globMayMatch('/w/.en[v]', '**/.env')).toBe(true);
    expect(globMayMatch('/w/.git/hook[s]/pre-commit', '**/.git/hooks/**')).toBe(true);
    expect(globMayMatch('/w/.en?', '**/.env.*')).toBe(false);
    expect(globMayMatch('/w/.en?', '**/.env')).toBe(true);
    expect(globMayMatch('/w/*', '**/.env')).toBe(true); // with dotglob (a persistent shell may have it) `*` is `.env` too
    expect(globMayMatch('/w/src/*.ts', '**/.env')).toBe(false);
    expect(globMayMatch('/w/[!x]env', '**/.env')).toBe(true);
    expect(globMayMatch('/w/[!.]env', '**/.env')).toBe(false);
    expect(globMayMatch('/home/u/.ss[h]/authorized_keys', '/home/u/.ssh/**')).toBe(true);
    expect(globMayMatch('/w/*.p[e]m', '**/*.pem')).toBe(true);
    expect(globMayMatch('/w/a[[:alpha:]]', '/w/ab')).toBe(true);
  });

  it('`**` may cross directories, as in zsh or with globstar', () => {
    expect(globMayMatch('/w/**/pre-commit', '**/.git/hooks/**')).toBe(true);
    expect(globMayMatch('/w/**', '/w/a/b/.env')).toBe(true);
    expect(globMayMatch('/w/*/pre-commit', '**/.git/hooks/**')).toBe(false);
    expect(globWithin('/w/src/**/x.ts', '/w/**')).toBe(false);
  });
});

describe('a glob within an allow pattern', () => {
  it('only for DIR/** patterns whose directory holds the glob’s literal directories', () => {
    expect(globWithin('/w/src/*.ts', '/w/**')).toBe(true);
    expect(globWithin('/w/src/*.ts', '/w/src/**')).toBe(true);
    expect(globWithin('/w/*/x', '/w/src/**')).toBe(false);
    expect(globWithin('/wx/*.ts', '/w/**')).toBe(false);
    expect(globWithin('/w/src/*.ts', '/w/src/*.ts')).toBe(false);
    expect(globWithin('/w/.?/x', '/w/**')).toBe(false); // `.?` is `..` for a shell that does not skip it
    expect(globWithin('/w/*/../x', '/w/**')).toBe(false);
    expect(globWithin('/w/*', '/**')).toBe(true);
  });
});

describe('glob path facts under policies/default.yaml', () => {
  const loaded = loadPolicyText(readFileSync('policies/default.yaml', 'utf8'), 'default.yaml', 'user');
  const policy = { files: [loaded.policy!] };
  const write = (path: string, glob = true): CallFacts => ({
    kind: 'execute', tool: undefined, title: undefined, agent: undefined, workspace: '/w',
    paths: [{ path, access: 'write', origin: 'redirect', ...(glob ? { glob } : {}) }],
    commands: [], urls: [], input: undefined, shellLine: undefined, shell: undefined, unresolvable: [],
  });
  const decision = (facts: CallFacts) => evaluate(policy, facts, { home: '/home/u' }).decision;

  it('a write that may land on a denied path is denied', () => {
    expect(decision(write('/w/.en[v]'))).toBe('deny');
    expect(decision(write('/w/.git/hook[s]/pre-commit'))).toBe('deny');
    expect(decision(write('/w/.en?'))).toBe('deny');
    expect(decision(write('/home/u/.ss[h]/authorized_keys'))).toBe('deny');
    expect(decision(write('/w/config/*.pem'))).toBe('deny');
  });

  it('an allow rule covers a glob only when it covers every expansion', () => {
    // default.yaml allows writes of logs in the project, by `${workspace}/**/*.log`: containment is
    // only proven for `DIR/**` patterns, so a glob written there asks (never a false allow).
    expect(decision(write('/w/logs/[a-c]x.log'))).toBe('ask');
    expect(decision(write('/w/src/[a-c]x.ts'))).toBe('ask');
    // `*.ts` may be `id_rsa.ts`, which the secrets rule (`**/id_rsa*`) denies.
    expect(decision(write('/w/src/*.ts'))).toBe('deny');
    // `*` may be `.git` (a shell with dotglob): the write may land in .git/, which is denied.
    expect(decision(write('/w/*/x.log'))).toBe('deny');
    expect(decision(write('/*/x.ts'))).toBe('deny'); // may be /etc/x.ts
    expect(decision(write('/opt/*/x.ts'))).toBe('deny'); // may be /opt/.git/x.ts (dotglob)
    expect(decision(write('/opt/[a-z]/x.ts'))).toBe('ask'); // outside the project, no rule denies it
    expect(decision(write('/w/../*/x.ts'))).not.toBe('allow'); // the facts layer canonicalises `..` first
    // As a literal path (no glob) `.en[v].log` is only that file, a log.
    expect(decision(write('/w/.en[v].log', false))).toBe('allow');
  });
});

describe('glob size', () => {
  it('a long glob is decided quickly, and a too long one fails closed', () => {
    const long = `/w/${'[ab]*/'.repeat(150)}x`;
    const started = performance.now();
    expect(globMayMatch(long, '**/.git/hooks/**')).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
    const tooLong = `/w/${'a*'.repeat(600)}`;
    expect(globMayMatch(tooLong, '/nowhere/x')).toBe(true);
    expect(globWithin(tooLong, '/w/**')).toBe(false);
  });
});
