/**
 * Shape checks for grants read from disk or handed to a store. Anything that fails is never
 * trusted: a grant that is half-understood could allow more than the user meant.
 */
import { ACCESSES, TOOL_KINDS } from '../core/facts.js';
import type { Grant } from './grant.js';
import { isAbsolutePath } from './paths.js';

export const GRANTS_FILE_VERSION = 1;

export interface GrantsFile {
  readonly version: typeof GRANTS_FILE_VERSION;
  readonly grants: readonly Grant[];
}

export type GrantsFileCheck =
  | { readonly ok: true; readonly file: GrantsFile }
  | { readonly ok: false; readonly reason: string; /** Set when a newer broker wrote the file. */ readonly newerVersion?: number };

export function checkGrantsFile(value: unknown): GrantsFileCheck {
  if (!isRecord(value)) return { ok: false, reason: 'the store is not a JSON object' };
  const { version, grants } = value;
  if (typeof version === 'number' && Number.isInteger(version) && version > GRANTS_FILE_VERSION) {
    return { ok: false, reason: `the store has version ${version}; this acp-broker reads version ${GRANTS_FILE_VERSION}`, newerVersion: version };
  }
  if (version !== GRANTS_FILE_VERSION) return { ok: false, reason: `the store has no valid "version" (expected ${GRANTS_FILE_VERSION})` };
  if (!Array.isArray(grants)) return { ok: false, reason: '"grants" is not an array' };
  for (const [index, grant] of grants.entries()) {
    const problem = grantProblem(grant);
    if (problem !== undefined) return { ok: false, reason: `grants[${index}]: ${problem}` };
  }
  return { ok: true, file: { version: GRANTS_FILE_VERSION, grants: grants as Grant[] } };
}

/** The first thing wrong with a stored grant, or undefined if it is well-formed. */
function grantProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'not an object';
  if (!isNonEmptyString(value.id)) return '"id" must be a non-empty string';
  return (
    decisionProblem(value.decision) ??
    subjectProblem(value.subject) ??
    scopeProblem(value.scope) ??
    (isIsoDate(value.createdAt) ? undefined : '"createdAt" must be an ISO date') ??
    (value.expiresAt === undefined || isIsoDate(value.expiresAt) ? undefined : '"expiresAt" must be an ISO date') ??
    (typeof value.source === 'string' ? undefined : '"source" must be a string') ??
    (typeof value.label === 'string' ? undefined : '"label" must be a string') ??
    (value.agent === undefined || typeof value.agent === 'string' ? undefined : '"agent" must be a string')
  );
}

export function decisionProblem(value: unknown): string | undefined {
  return value === 'allow' || value === 'deny' ? undefined : '"decision" must be "allow" or "deny"';
}

export function subjectProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return '"subject" must be an object';
  switch (value.type) {
    case 'command':
      if (!Array.isArray(value.argv) || value.argv.length === 0 || !value.argv.every((w) => typeof w === 'string')) {
        return 'a command subject needs a non-empty "argv" of strings';
      }
      return typeof value.prefix === 'boolean' ? undefined : 'a command subject needs a boolean "prefix"';
    case 'path':
      if (typeof value.path !== 'string' || !isAbsolutePath(value.path)) return 'a path subject needs an absolute "path"';
      return (ACCESSES as readonly unknown[]).includes(value.access) ? undefined : `a path subject needs "access" (${ACCESSES.join(' | ')})`;
    case 'url':
      return isNonEmptyString(value.host) && value.host === value.host.toLowerCase() && !/[/\s]/.test(value.host)
        ? undefined
        : 'a url subject needs a lowercase "host"';
    case 'tool':
      if (!(TOOL_KINDS as readonly unknown[]).includes(value.kind)) return `a tool subject needs "kind" (${TOOL_KINDS.join(' | ')})`;
      return value.tool === undefined || typeof value.tool === 'string' ? undefined : '"tool" must be a string';
    default:
      return '"subject.type" must be command | path | url | tool';
  }
}

export function scopeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return '"scope" must be an object';
  if (value.type === 'global') return undefined;
  if (value.type === 'project') {
    return typeof value.dir === 'string' && isAbsolutePath(value.dir) ? undefined : 'a project scope needs an absolute "dir"';
  }
  return '"scope.type" must be project | global';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function isIsoDate(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
}
