/**
 * A JSON Schema (2020-12) validator for the subset schema/exec-events.schema.json uses: `$ref` to
 * `#/$defs/…`, `oneOf`, `type`, `const`, `enum`, `properties`, `required`, `items`, `minimum` and
 * `format: date-time`. Any other keyword is an error, so the schema cannot quietly outgrow it.
 * `strict` also refuses properties the schema does not name (the schema itself stays open, as its
 * stability promise says; exec's own output must not carry undocumented fields).
 */
type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', '$id', '$defs', 'title', 'description', '$comment']);
const KEYWORDS = new Set(['$ref', 'oneOf', 'type', 'const', 'enum', 'properties', 'required', 'items', 'minimum', 'format']);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function validate(root: Schema, value: unknown, options: { strict?: boolean } = {}): string[] {
  const errors: string[] = [];
  check(root, root, value, '$', errors, options.strict ?? false);
  return errors;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function check(root: Schema, schema: Schema, value: unknown, at: string, errors: string[], strict: boolean): void {
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key)) throw new Error(`unsupported schema keyword ${key} at ${at}`);
  }
  if (typeof schema['$ref'] === 'string') {
    const match = /^#\/\$defs\/([^/]+)$/.exec(schema['$ref']);
    const target = match ? (root['$defs'] as Record<string, Schema> | undefined)?.[match[1]!] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${schema['$ref']}`);
    check(root, target, value, at, errors, strict);
  }
  if (Array.isArray(schema['oneOf'])) {
    const passing = (schema['oneOf'] as Schema[]).map((sub) => {
      const subErrors: string[] = [];
      check(root, sub, value, at, subErrors, strict);
      return subErrors;
    });
    const matched = passing.filter((e) => e.length === 0).length;
    if (matched !== 1) {
      errors.push(`${at}: matches ${matched} of oneOf's ${passing.length} schemas`
        + (matched === 0 ? ` (closest: ${passing.reduce((a, b) => (b.length < a.length ? b : a)).join('; ')})` : ''));
    }
  }
  if (schema['type'] !== undefined) {
    const allowed = Array.isArray(schema['type']) ? schema['type'] as string[] : [schema['type'] as string];
    const actual = typeOf(value);
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) {
      errors.push(`${at}: is ${actual}, not ${allowed.join(' or ')}`);
      return;
    }
  }
  if ('const' in schema && JSON.stringify(schema['const']) !== JSON.stringify(value)) errors.push(`${at}: is not ${JSON.stringify(schema['const'])}`);
  if (Array.isArray(schema['enum']) && !schema['enum'].some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema['enum'])}`);
  }
  if (typeof schema['minimum'] === 'number' && typeof value === 'number' && value < schema['minimum']) errors.push(`${at}: ${value} < ${schema['minimum']}`);
  if (schema['format'] === 'date-time' && typeof value === 'string' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) {
    errors.push(`${at}: ${JSON.stringify(value)} is not a date-time`);
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of (schema['required'] as string[] | undefined) ?? []) {
      if (!(name in object)) errors.push(`${at}: lacks ${name}`);
    }
    const properties = schema['properties'] as Record<string, Schema> | undefined;
    if (properties) {
      for (const [name, sub] of Object.entries(properties)) {
        if (name in object) check(root, sub, object[name], `${at}.${name}`, errors, strict);
      }
      if (strict) for (const name of Object.keys(object)) if (!(name in properties)) errors.push(`${at}: has ${name}, which the schema does not name`);
    }
  }
  if (Array.isArray(value) && schema['items'] !== undefined) {
    value.forEach((item, i) => check(root, schema['items'] as Schema, item, `${at}[${i}]`, errors, strict));
  }
}
