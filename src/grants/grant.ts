/**
 * Grants: the user's remembered "always allow / always reject" answers, and what each one covers.
 * Pure: no I/O, no clock, no globals. The store (store.ts, file-store.ts) persists them.
 */
import { assertNever } from '../core/decision.js';
import type { Access, ToolKind } from '../core/facts.js';
import type { SimpleCommand } from '../shell/types.js';
import { normalizeHost } from '../policy/hosts.js';
import { isWithin, trimTrailingSeparators } from './paths.js';

export type GrantDecision = 'allow' | 'deny';

export type GrantSubject =
  /** An exact simple command (argv after shell analysis), or any command starting with argv if prefix. */
  | { readonly type: 'command'; readonly argv: readonly string[]; readonly prefix: boolean }
  /** An exact absolute, normalised path with one access. */
  | { readonly type: 'path'; readonly path: string; readonly access: Access }
  /** A url host (lowercased, with the port when not the default), over http(s). */
  | { readonly type: 'url'; readonly host: string }
  /** A call without items: its kind, and its tool when given. */
  | { readonly type: 'tool'; readonly kind: ToolKind; readonly tool?: string };

export type GrantScope = { readonly type: 'project'; readonly dir: string } | { readonly type: 'global' };

export interface Grant {
  readonly id: string;
  readonly decision: GrantDecision;
  readonly subject: GrantSubject;
  readonly scope: GrantScope;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601; from then on the grant covers nothing. */
  readonly expiresAt?: string;
  /** Who answered: 'client' | 'desktop' | 'web' | 'cli' | … */
  readonly source: string;
  /** Human text: what the grant covers. */
  readonly label: string;
  /** When set, the grant covers only calls from this agent (agentInfo.name). */
  readonly agent?: string;
}

/** One item of a call (as policy/items.ts splits it): each simple command, each path, each url, or one empty item. */
export type GrantItem =
  | { readonly type: 'command'; readonly command: SimpleCommand }
  | { readonly type: 'path'; readonly path: string; readonly access: Access }
  | { readonly type: 'url'; readonly url: string }
  | { readonly type: 'none'; readonly kind: ToolKind; readonly tool: string | undefined };

export interface GrantContext {
  /** The session's workspace (cwd); absolute. */
  readonly workspace: string;
  readonly now: Date;
  /** The agent's name, if known; grants bound to an agent cover nothing without it. */
  readonly agent?: string;
}

// These change who runs a command, where (another root, namespace, host or container), or add
// arguments nobody has seen, so a grant for the bare command must not stretch to cover them
// (`sudo rm x`, `ssh host rm x`, `… | xargs rm`).
const ELEVATING_WRAPPERS = new Set([
  'sudo', 'doas', 'su', 'pkexec', 'run0', 'runuser', 'chroot', 'sg', 'setpriv', 'unshare', 'nsenter',
  'systemd-run', 'fakeroot', 'ssh', 'docker', 'podman', 'kubectl',
]);
const ARGUMENT_ADDING_WRAPPERS = new Set(['xargs', 'parallel', 'find']);

export function isExpired(grant: Pick<Grant, 'expiresAt'>, now: Date): boolean {
  if (grant.expiresAt === undefined) return false;
  const expiry = Date.parse(grant.expiresAt);
  // An unreadable expiry is treated as past: fail towards asking again.
  return Number.isNaN(expiry) || now.getTime() >= expiry;
}

function scopeCovers(scope: GrantScope, workspace: string): boolean {
  switch (scope.type) {
    case 'global':
      return true;
    case 'project':
      return isWithin(workspace, scope.dir);
    default:
      return assertNever(scope, 'grant scope');
  }
}

export function grantCoversItem(grant: Grant, item: GrantItem, ctx: GrantContext): boolean {
  if (isExpired(grant, ctx.now)) return false;
  if (grant.agent !== undefined && grant.agent !== ctx.agent) return false;
  if (!scopeCovers(grant.scope, ctx.workspace)) return false;
  return subjectCovers(grant, item);
}

function subjectCovers(grant: Grant, item: GrantItem): boolean {
  const subject = grant.subject;
  switch (subject.type) {
    case 'command':
      return item.type === 'command' && commandCovered(subject, grant, item.command);
    case 'path':
      return item.type === 'path' && item.path === subject.path && item.access === subject.access;
    case 'url':
      return item.type === 'url' && urlHost(item.url) === subject.host;
    case 'tool':
      return (
        item.type === 'none' &&
        item.kind === subject.kind &&
        (subject.tool === undefined || subject.tool === item.tool) &&
        // Switching mode is only ever allowed by a rule that names it (README: "How a call is decided").
        !(grant.decision === 'allow' && item.kind === 'switch_mode')
      );
    default:
      return assertNever(subject, 'grant subject');
  }
}

function commandCovered(
  subject: Extract<GrantSubject, { type: 'command' }>,
  grant: Grant,
  command: SimpleCommand,
): boolean {
  if (subject.argv.length === 0) return false;
  const argvMatches = subject.prefix
    ? command.argv.length >= subject.argv.length && subject.argv.every((word, i) => command.argv[i] === word)
    : command.argv.length === subject.argv.length && subject.argv.every((word, i) => command.argv[i] === word);
  if (!argvMatches) return false;
  // A deny grant may cover more than it names; only an allow grant must not stretch.
  if (grant.decision === 'deny') return true;
  // Leading assignments change what a command does (NODE_OPTIONS, LD_PRELOAD, PATH).
  if (command.assignments.length > 0) return false;
  // An argument known only at run time (`git push origin $b`) is not the word the user saw.
  if (command.dynamicArguments) return false;
  if (command.wrappers.some((w) => ELEVATING_WRAPPERS.has(w))) return false;
  if (!subject.prefix && command.wrappers.some((w) => ARGUMENT_ADDING_WRAPPERS.has(w))) return false;
  // A project grant is for commands run inside the project (`cd / && npm test` is not the same).
  return grant.scope.type !== 'project' || isWithin(command.cwd, grant.scope.dir);
}

/** The host a url grant is keyed on (`host[:port]`, lowercased), or undefined for non-http(s) or unparsable urls. */
export function urlHost(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.hostname === '') return undefined;
  // Normalised like url conditions (trailing dot, case, IDNA), so `evil.example.` meets a grant for `evil.example`.
  const host = normalizeHost(parsed.hostname);
  return parsed.port === '' ? host : `${host}:${parsed.port}`;
}

/** The narrowest subject that covers an item; undefined when the item cannot be granted (bad url). */
export function subjectOfItem(item: GrantItem): GrantSubject | undefined {
  switch (item.type) {
    case 'command':
      // A command with an argument known only at run time cannot be named: nothing to remember.
      return item.command.argv.length === 0 || item.command.dynamicArguments ? undefined : { type: 'command', argv: [...item.command.argv], prefix: false };
    case 'path':
      return { type: 'path', path: item.path, access: item.access };
    case 'url': {
      const host = urlHost(item.url);
      return host === undefined ? undefined : { type: 'url', host };
    }
    case 'none':
      return item.tool === undefined ? { type: 'tool', kind: item.kind } : { type: 'tool', kind: item.kind, tool: item.tool };
    default:
      return assertNever(item, 'grant item');
  }
}

export function sameSubjectAndScope(a: Pick<Grant, 'subject' | 'scope'>, b: Pick<Grant, 'subject' | 'scope'>): boolean {
  return sameSubject(a.subject, b.subject) && sameScope(a.scope, b.scope);
}

function sameSubject(a: GrantSubject, b: GrantSubject): boolean {
  switch (a.type) {
    case 'command':
      return (
        b.type === 'command' &&
        a.prefix === b.prefix &&
        a.argv.length === b.argv.length &&
        a.argv.every((word, i) => b.argv[i] === word)
      );
    case 'path':
      return b.type === 'path' && a.path === b.path && a.access === b.access;
    case 'url':
      return b.type === 'url' && a.host === b.host;
    case 'tool':
      return b.type === 'tool' && a.kind === b.kind && a.tool === b.tool;
    default:
      return assertNever(a, 'grant subject');
  }
}

function sameScope(a: GrantScope, b: GrantScope): boolean {
  switch (a.type) {
    case 'global':
      return b.type === 'global';
    case 'project':
      return b.type === 'project' && trimTrailingSeparators(a.dir) === trimTrailingSeparators(b.dir);
    default:
      return assertNever(a, 'grant scope');
  }
}
