import { describe, expect, it } from 'vitest';
import { validate } from '../../helpers/json-schema.js';

// The small validator the exec JSON tests trust: each keyword it claims accepts and refuses.
describe('the test JSON Schema validator', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    oneOf: [{ $ref: '#/$defs/a' }, { $ref: '#/$defs/b' }],
    $defs: {
      a: {
        type: 'object', required: ['type', 'n'],
        properties: { type: { const: 'a' }, n: { type: 'integer', minimum: 0 }, at: { type: 'string', format: 'date-time' }, tags: { type: 'array', items: { enum: ['x', 'y'] } } },
      },
      b: { type: 'object', required: ['type'], properties: { type: { const: 'b' }, v: { type: ['string', 'null'] } } },
    },
  };

  it('accepts what matches', () => {
    expect(validate(schema, { type: 'a', n: 3, at: '2026-12-01T18:00:00.000Z', tags: ['x', 'y'] })).toEqual([]);
    expect(validate(schema, { type: 'b', v: null })).toEqual([]);
    expect(validate(schema, { type: 'b', v: 'text', extra: 1 })).toEqual([]);
  });

  it('refuses each kind of mismatch', () => {
    expect(validate(schema, { type: 'a' })).toEqual(['$: matches 0 of oneOf\'s 2 schemas (closest: $: lacks n)']);
    expect(validate(schema.$defs.a, { type: 'a', n: -1 })).toEqual(['$.n: -1 < 0']);
    expect(validate(schema.$defs.a, { type: 'a', n: 1.5 })).toEqual(['$.n: is number, not integer']);
    expect(validate(schema.$defs.a, { type: 'a', n: 1, at: 'yesterday' })).toEqual(['$.at: "yesterday" is not a date-time']);
    expect(validate(schema.$defs.a, { type: 'a', n: 1, tags: ['z'] })).toEqual(['$.tags[0]: "z" is not one of ["x","y"]']);
    expect(validate(schema.$defs.b, { type: 'c' })).toEqual(['$.type: is not "b"']);
    expect(validate(schema.$defs.b, { type: 'b', v: 3 })).toEqual(['$.v: is integer, not string or null']);
    expect(validate(schema.$defs.b, 'b')).toEqual(['$: is string, not object']);
  });

  it('strict mode refuses properties the schema does not name', () => {
    expect(validate(schema, { type: 'b', extra: 1 }, { strict: true })).toEqual(['$: matches 0 of oneOf\'s 2 schemas (closest: $: has extra, which the schema does not name)']);
  });

  it('oneOf refuses a value two branches accept', () => {
    expect(validate({ oneOf: [{ type: 'string' }, { const: 'a' }] }, 'a')).toEqual(['$: matches 2 of oneOf\'s 2 schemas']);
  });

  it('an unsupported keyword is an error, not a pass', () => {
    expect(() => validate({ pattern: '^a' }, 'b')).toThrow('unsupported schema keyword pattern');
  });
});
