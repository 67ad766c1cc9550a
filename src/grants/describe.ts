/**
 * Human labels for grants. They appear in the editor's permission dialog ("Always allow `npm test`
 * in project-x") and in `acp-broker grants list`, so they must say exactly what is covered and must
 * not be spoofable by control or bidi characters hidden in a command or path.
 */
import { assertNever } from '../core/decision.js';
import type { Grant, GrantScope, GrantSubject } from './grant.js';
import { baseName, isWithin, trimTrailingSeparators } from './paths.js';

/** What a subject covers; paths inside `workspace` (when given) are shown relative to it. */
export function describeSubject(subject: GrantSubject, workspace?: string): string {
  switch (subject.type) {
    case 'command': {
      const line = `\`${subject.argv.map(shellWord).join(' ')}\``;
      return subject.prefix ? `${line} with any arguments` : line;
    }
    case 'path': {
      const shown = visible(displayPath(subject.path, workspace));
      switch (subject.access) {
        case 'read':
          return `reads ${shown}`;
        case 'write':
          return `writes to ${shown}`;
        case 'delete':
          return `deletes ${shown}`;
        default:
          return assertNever(subject.access, 'access');
      }
    }
    case 'url':
      return `fetches from ${visible(subject.host)}`;
    case 'tool':
      return subject.tool === undefined ? `any ${subject.kind} call` : `${subject.kind} calls by \`${visible(subject.tool)}\``;
    default:
      return assertNever(subject, 'grant subject');
  }
}

function describeScope(scope: GrantScope): string {
  switch (scope.type) {
    case 'project':
      return `in ${visible(baseName(scope.dir))}`;
    case 'global':
      return 'in every project';
    default:
      return assertNever(scope, 'grant scope');
  }
}

/** The default label of a grant: "`npm test` in project-x", "writes to src/a.ts in project-x". */
export function describeGrant(grant: Pick<Grant, 'subject' | 'scope'>): string {
  const workspace = grant.scope.type === 'project' ? grant.scope.dir : undefined;
  return `${describeSubject(grant.subject, workspace)} ${describeScope(grant.scope)}`;
}

function displayPath(path: string, workspace: string | undefined): string {
  if (workspace === undefined || path === workspace || !isWithin(path, workspace)) return path;
  const base = trimTrailingSeparators(workspace);
  // A root workspace would only shorten `/etc/hosts` to `etc/hosts`; keep it absolute.
  return /[\\/]$/.test(base) ? path : path.slice(base.length + 1);
}

const PLAIN_WORD = /^[A-Za-z0-9_\-+=.,/:@%^]+$/;

/** Quote a word the way a shell user would read it back. */
function shellWord(word: string): string {
  if (PLAIN_WORD.test(word)) return word;
  return `'${visible(word).replaceAll("'", `'\\''`)}'`;
}

// C0/C1 controls, DEL, zero-width characters and bidi overrides/isolates can hide or reorder text.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

/** Makes invisible and control characters visible as `\u{…}` escapes. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`);
}
