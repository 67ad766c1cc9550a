/**
 * The grant store port, the pure list operations every store shares (so the file store and the
 * memory store cannot drift apart), and a memory store for tests and for `--no-grants` style runs.
 */
import { BrokerError } from '../core/errors.js';
import { describeGrant } from './describe.js';
import type { Grant, GrantDecision, GrantScope, GrantSubject } from './grant.js';
import { isExpired, sameSubjectAndScope } from './grant.js';
import { isWithin } from './paths.js';
import { decisionProblem, scopeProblem, subjectProblem } from './shape.js';

export interface GrantInput {
  readonly decision: GrantDecision;
  readonly subject: GrantSubject;
  readonly scope: GrantScope;
  readonly expiresAt?: string;
  readonly source: string;
  /** Defaults to describeGrant(): "`npm test` in project-x". */
  readonly label?: string;
  readonly agent?: string;
}

export interface ClearFilter {
  /** Only project grants for this directory or a directory inside it. */
  readonly projectDir?: string;
}

export interface GrantStore {
  /** Grants in force now (expired ones are left out), oldest first. */
  list(): Grant[];
  /**
   * Records a grant. A grant for the same subject, scope and agent is replaced: with the same
   * decision it is refreshed and keeps its id; with the opposite decision it gets a new id.
   */
  add(input: GrantInput): Grant;
  revoke(id: string): boolean;
  /** Removes every grant, or those matching the filter; returns how many were in force. */
  clear(filter?: ClearFilter): number;
  /** Drops any cached view so the next list() reads the backing storage. */
  reload(): void;
}

export type GrantStoreProblemCode = 'store_corrupt' | 'store_io';

export interface GrantStoreProblem {
  readonly code: GrantStoreProblemCode;
  readonly message: string;
  /** Where a corrupt store was moved to. */
  readonly backupPath?: string;
}

/** A store could not be read or written. Callers match on `code`. */
export class GrantStoreError extends BrokerError {
  declare readonly code: GrantStoreProblemCode;

  constructor(code: GrantStoreProblemCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'GrantStoreError';
  }
}

/** The input to add() is malformed (a caller bug, or a subject built from unusable facts). */
export class InvalidGrantError extends TypeError {
  readonly code = 'invalid_grant';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidGrantError';
  }
}

export interface GrantStoreDeps {
  readonly now: () => Date;
  readonly newId: () => string;
}

export function defaultNewId(): string {
  return globalThis.crypto.randomUUID().replaceAll('-', '').slice(0, 12);
}

export function pruneExpired(grants: readonly Grant[], now: Date): Grant[] {
  return grants.filter((grant) => !isExpired(grant, now));
}

export function addGrant(grants: readonly Grant[], input: GrantInput, deps: GrantStoreDeps): { grants: Grant[]; grant: Grant } {
  const subject = normaliseSubject(input.subject);
  const problem =
    decisionProblem(input.decision) ??
    subjectProblem(subject) ??
    scopeProblem(input.scope) ??
    (input.expiresAt === undefined || !Number.isNaN(Date.parse(input.expiresAt)) ? undefined : '"expiresAt" must be an ISO date') ??
    (typeof input.source === 'string' ? undefined : '"source" must be a string');
  if (problem !== undefined) throw new InvalidGrantError(`invalid grant: ${problem}`);

  const replaces = (g: Grant) => sameSubjectAndScope(g, { subject, scope: input.scope }) && g.agent === input.agent;
  const refreshed = grants.find((g) => replaces(g) && g.decision === input.decision);
  const grant: Grant = {
    id: refreshed?.id ?? uniqueId(grants, deps.newId),
    decision: input.decision,
    subject,
    scope: input.scope,
    createdAt: deps.now().toISOString(),
    ...(input.expiresAt === undefined ? {} : { expiresAt: new Date(input.expiresAt).toISOString() }),
    source: input.source,
    label: input.label ?? describeGrant({ subject, scope: input.scope }),
    ...(input.agent === undefined ? {} : { agent: input.agent }),
  };
  return { grants: [...grants.filter((g) => !replaces(g)), grant], grant };
}

export function revokeGrant(grants: readonly Grant[], id: string): { grants: Grant[]; removed: number } {
  const kept = grants.filter((g) => g.id !== id);
  return { grants: kept, removed: grants.length - kept.length };
}

export function clearGrants(grants: readonly Grant[], filter: ClearFilter = {}): { grants: Grant[]; removed: number } {
  const { projectDir } = filter;
  const kept =
    projectDir === undefined ? [] : grants.filter((g) => !(g.scope.type === 'project' && isWithin(g.scope.dir, projectDir)));
  return { grants: kept, removed: grants.length - kept.length };
}

function normaliseSubject(subject: GrantSubject): GrantSubject {
  switch (subject?.type) {
    case 'url':
      return typeof subject.host === 'string' ? { ...subject, host: subject.host.toLowerCase() } : subject;
    case 'command':
      return Array.isArray(subject.argv) ? { ...subject, argv: [...subject.argv] } : subject;
    default:
      return subject;
  }
}

function uniqueId(grants: readonly Grant[], newId: () => string): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = newId();
    if (id !== '' && !grants.some((g) => g.id === id)) return id;
  }
  throw new InvalidGrantError('the id generator keeps returning ids already in use');
}

/** A store kept in memory only; the same semantics as the file store. */
export function createMemoryGrantStore(options: Partial<GrantStoreDeps> & { grants?: readonly Grant[] } = {}): GrantStore {
  const deps: GrantStoreDeps = { now: options.now ?? (() => new Date()), newId: options.newId ?? defaultNewId };
  let grants: Grant[] = [...(options.grants ?? [])];
  const live = () => (grants = pruneExpired(grants, deps.now()));
  return {
    list: () => [...live()],
    add(input) {
      const result = addGrant(live(), input, deps);
      grants = result.grants;
      return result.grant;
    },
    revoke(id) {
      const result = revokeGrant(live(), id);
      grants = result.grants;
      return result.removed > 0;
    },
    clear(filter) {
      const result = clearGrants(live(), filter);
      grants = result.grants;
      return result.removed;
    },
    reload() {},
  };
}
