/**
 * `acp-broker grants list [--json] | revoke ID | clear [--project DIR]`: a thin command over a
 * GrantStore. Exit codes: 0 done, 1 failed (no such grant, store error), 2 bad usage.
 */
import path from 'node:path';
import { assertNever } from '../core/decision.js';
import { visible } from './describe.js';
import type { Grant } from './grant.js';
import type { GrantStore } from './store.js';
import { GrantStoreError } from './store.js';

export interface GrantsCommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Base for a relative `--project DIR`; defaults to the process cwd. */
  readonly cwd?: string;
}

const GRANTS_USAGE = `usage: acp-broker grants list [--json]
       acp-broker grants revoke ID [--json]
       acp-broker grants clear [--project DIR] [--json]
`;

type Parsed =
  | { readonly command: 'help' }
  | { readonly command: 'list'; readonly json: boolean }
  | { readonly command: 'revoke'; readonly id: string; readonly json: boolean }
  | { readonly command: 'clear'; readonly projectDir: string | undefined; readonly json: boolean };

export function runGrantsCommand(args: readonly string[], io: GrantsCommandIo, store: GrantStore): number {
  const parsed = parseArgs(args, io.cwd ?? process.cwd());
  if (typeof parsed === 'string') {
    io.stderr(`acp-broker grants: ${parsed}\n${GRANTS_USAGE}`);
    return 2;
  }
  try {
    return run(parsed, io, store);
  } catch (error) {
    if (!(error instanceof GrantStoreError)) throw error;
    io.stderr(`acp-broker grants: ${error.message}\n`);
    return 1;
  }
}

function run(parsed: Parsed, io: GrantsCommandIo, store: GrantStore): number {
  switch (parsed.command) {
    case 'help':
      io.stdout(GRANTS_USAGE);
      return 0;
    case 'list': {
      const grants = store.list();
      io.stdout(parsed.json ? `${JSON.stringify(grants, undefined, 2)}\n` : formatTable(grants));
      return 0;
    }
    case 'revoke': {
      const label = store.list().find((g) => g.id === parsed.id)?.label;
      if (!store.revoke(parsed.id)) {
        io.stderr(`acp-broker grants: no grant with id ${visible(parsed.id)}\n`);
        return 1;
      }
      io.stdout(parsed.json ? `${JSON.stringify({ revoked: parsed.id })}\n` : `Revoked ${parsed.id}${label === undefined ? '' : `: ${visible(label)}`}\n`);
      return 0;
    }
    case 'clear': {
      const removed = store.clear(parsed.projectDir === undefined ? {} : { projectDir: parsed.projectDir });
      const where = parsed.projectDir === undefined ? '' : ` for ${visible(parsed.projectDir)}`;
      io.stdout(parsed.json ? `${JSON.stringify({ removed })}\n` : `Removed ${removed} ${removed === 1 ? 'grant' : 'grants'}${where}\n`);
      return 0;
    }
    default:
      return assertNever(parsed, 'grants command');
  }
}

/** The parsed command, or what is wrong with the arguments. */
function parseArgs(args: readonly string[], cwd: string): Parsed | string {
  const [command, ...rest] = args;
  if (command === undefined) return 'missing subcommand';
  if (command === 'help' || command === '--help' || command === '-h') return { command: 'help' };
  const json = rest.includes('--json');
  const others = rest.filter((arg) => arg !== '--json');
  switch (command) {
    case 'list':
      return others.length === 0 ? { command, json } : `unexpected argument: ${others[0]}`;
    case 'revoke': {
      const [id, extra] = others;
      if (id === undefined || id.startsWith('-')) return 'revoke needs a grant ID (see `acp-broker grants list`)';
      return extra === undefined ? { command, id, json } : `unexpected argument: ${extra}`;
    }
    case 'clear': {
      if (others.length === 0) return { command, projectDir: undefined, json };
      const [flag, value, extra] = others;
      const inline = flag?.startsWith('--project=') ? flag.slice('--project='.length) : undefined;
      const dir = inline ?? (flag === '--project' ? value : undefined);
      const leftover = inline === undefined ? extra : value;
      if (flag !== '--project' && inline === undefined) return `unexpected argument: ${flag}`;
      if (dir === undefined || dir === '') return '--project needs a directory';
      if (leftover !== undefined) return `unexpected argument: ${leftover}`;
      return { command, projectDir: path.resolve(cwd, dir), json };
    }
    default:
      return `unknown subcommand: ${command}`;
  }
}

function formatTable(grants: readonly Grant[]): string {
  if (grants.length === 0) return 'No grants.\n';
  const header = ['ID', 'DECISION', 'COVERS', 'SCOPE', 'CREATED', 'SOURCE', 'EXPIRES'];
  const rows = grants.map((g) => [
    g.id,
    g.decision,
    g.label,
    g.scope.type === 'global' ? 'global' : g.scope.dir,
    shortTime(g.createdAt),
    g.source,
    g.expiresAt === undefined ? 'never' : shortTime(g.expiresAt),
  ].map(visible));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** ISO without milliseconds: `2025-01-02T03:04:05Z`. */
function shortTime(iso: string): string {
  return iso.replace(/\.\d{3}Z$/, 'Z');
}
