import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskEveryPattern, maskText, maskValue, withoutMaskCaches } from '../../src/audit/mask.js';

// Fragments of every secret shape, in mixed case, so random strings often come close to one.
const FRAGMENTS = ['sk-', 'pk-', 'rk-', 'ghp_', 'gho_', 'github_pat_', 'AKIA', 'AIza', 'xoxb-', '-----BEGIN ', 'RSA ', 'PRIVATE KEY-----',
  '-----END ', 'Bearer ', 'bearer\t', '--password=', '-passwd ', '--token ', '--secret=', '--api-key=', '--apikey ', 'API_KEY=', 'MY_TOKEN=',
  'SECRET=', 'PASSWORD=', 'ACCESS_KEY=', 'Secret', 'ToKeN', 'abcdefghijklmnopqrstuvwxyz0123456789', 'ABCDEFGHIJKLMNOP', '_', '-', '=', ' ', "'", '"', '\n', 'é'];

describe('audit masking', () => {
  it('masks the shapes of keys, tokens and inline secrets', () => {
    expect(maskText('curl -H "Authorization: Bearer abc.def" --token t0k3n https://x')).toBe('curl -H "Authorization: Bearer ***" --token *** https://x');
    expect(maskText('export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz && API_KEY=sk-abcdefghijklmnop run')).toBe('export GITHUB_TOKEN=*** && API_KEY=*** run');
    expect(maskText('aws --profile x AKIAABCDEFGHIJKLMNOP')).toBe('aws --profile x ***');
    expect(maskValue({ password: 'hunter2', nested: { apiKey: 42, note: 'xoxb-1234567890-abc' } })).toEqual({ password: '***', nested: { apiKey: '***', note: '***' } });
  });

  it('the quick pre-check never skips a string that a pattern would change', () => {
    fc.assert(fc.property(fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6 })), { maxLength: 12 }), (parts) => {
      const text = parts.join('');
      expect(text.length).toBeLessThan(2000); // below the length at which maskText also truncates
      expect(maskText(text)).toBe(maskEveryPattern(text));
    }), { numRuns: 20_000 });
  });
});

describe('the masking caches (recent strings, key kinds) are a fast path of the same function', () => {
  // Few distinct strings and keys, so values and keys repeat within an object and across runs.
  const text = fc.array(fc.constantFrom(...FRAGMENTS, 'npm test', 'git status'), { maxLength: 4 }).map((parts) => parts.join(''));
  const key = fc.constantFrom('command', 'title', 'token', 'apiKey', 'name', 'value', 'key', 'session_key', 'sig', 'input', 'items', 'env', 'note');
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), fc.boolean(),
      fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
  })).node;

  it('gives what the uncached path gives, for any value, however warm the caches are', () => {
    fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 6 }), (values) => {
      for (const v of values) expect(maskValue(v)).toEqual(withoutMaskCaches(() => maskValue(v)));
      for (const v of values) expect(maskValue({ input: v, title: v })).toEqual(withoutMaskCaches(() => maskValue({ input: v, title: v })));
    }), { numRuns: 3_000 });
  });
});

describe('audit masking of structured input (copy on write)', () => {
  it('returns the very value when nothing needs masking, and leaves the input untouched when something does', () => {
    const clean = { command: 'npm test', cwd: '/w', args: ['a', 1, null, { deep: true }] };
    expect(maskValue(clean)).toBe(clean);
    const input = { command: 'deploy', env: { API_TOKEN: 'abc', list: ['x', 'Bearer zzz'] }, after: 1 };
    const snapshot = structuredClone(input);
    const masked = maskValue(input) as typeof input;
    expect(masked).toEqual({ command: 'deploy', env: { API_TOKEN: '***', list: ['x', 'Bearer ***'] }, after: 1 });
    expect(input).toEqual(snapshot);
    expect(masked.command).toBe(input.command);
    expect(JSON.stringify(Object.keys(masked))).toBe(JSON.stringify(Object.keys(input)));
  });

  it('keeps a `__proto__` key from JSON as data, in place, when the object is copied', () => {
    const input = JSON.parse('{"a":1,"__proto__":{"x":1},"password":"p"}') as Record<string, unknown>;
    const masked = maskValue(input) as Record<string, unknown>;
    expect(JSON.stringify(masked)).toBe('{"a":1,"__proto__":{"x":1},"password":"***"}');
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
  });

  it('cuts arrays to their first 100 items and nesting at depth 8', () => {
    const long = Array.from({ length: 150 }, (_, i) => i);
    expect(maskValue(long)).toEqual(long.slice(0, 100));
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10; i++) deep = { d: deep };
    expect(JSON.stringify(maskValue(deep))).toContain('"(nested too deep)"');
  });
});
