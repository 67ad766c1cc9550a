import { isAbsolute, relative, sep } from 'node:path';
import { packagePath } from '../platform/dirs.js';

/**
 * Where editors find the policy JSON Schema (schema/policy.schema.json, shipped in the package):
 * a `# yaml-language-server: $schema=…` modeline, which takes a URL, a path relative to the YAML
 * file, or an absolute path.
 */

/** The reference the bundled policies use: relative to policies/, so it holds wherever the package is installed. */
export const POLICY_SCHEMA_URL = '../schema/policy.schema.json';

const MODELINE_PREFIX = '# yaml-language-server: $schema=';

/**
 * The modeline for a policy file in `fileDir`: a relative path inside the package (it moves with
 * it), else the installed schema's absolute path (a user's or project's policy lives elsewhere,
 * and a relative path from there would break when either moves).
 */
export function schemaLineFor(fileDir: string): string {
  const schema = packagePath('schema', 'policy.schema.json');
  const fromFile = relative(fileDir, schema);
  const insidePackage = !relative(packagePath(), fileDir).startsWith('..') && !isAbsolute(relative(packagePath(), fileDir));
  return `${MODELINE_PREFIX}${insidePackage ? fromFile.split(sep).join('/') : schema}`;
}
