/**
 * `fs/read_text_file` and `fs/write_text_file`, carried out for the agent once the broker has let
 * them through. A missing file reads as empty text (see readTextFile). Paths must be absolute (the protocol says so, and a relative one would be resolved
 * against exec's own cwd, which is not what the broker judged). A write lands where the broker
 * judged it: at the path with its links resolved as the kernel would (platform/canonicalize.ts),
 * atomically (a temporary file in the same directory, then a rename), missing parent directories
 * created first.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import { resolvePhysically } from '../platform/canonicalize.js';
import { describeFsError } from '../platform/fs-errors.js';
import { mkdirParents } from '../platform/mkdir.js';

/** The text of `path` from 1-based `line` on, at most `limit` lines (each with its line end). */
export async function readTextFile(params: { path: string; line?: number | null; limit?: number | null }): Promise<string> {
  const path = absolute(params.path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    // A file that does not exist yet reads as empty, as a new editor buffer would: gemini-cli
    // (SDK 0.16.1) gets a JSON-RPC error as a plain object its not-found check cannot recognise,
    // and would then refuse to create any new file (test/interop/README.md).
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw fsError(path, error);
  }
  return sliceLines(text, params.line ?? undefined, params.limit ?? undefined);
}

/** `limit` lines of `text` from 1-based `line` (line 0 is taken as 1, as the schema allows it). */
export function sliceLines(text: string, line: number | undefined, limit: number | undefined): string {
  if (line === undefined && limit === undefined) return text;
  const first = Math.max(1, line ?? 1) - 1;
  let start = 0;
  for (let n = 0; n < first; n++) {
    const end = text.indexOf('\n', start);
    if (end === -1) return '';
    start = end + 1;
  }
  if (limit === undefined) return text.slice(start);
  let end = start;
  for (let n = 0; n < limit; n++) {
    const next = text.indexOf('\n', end);
    if (next === -1) return text.slice(start);
    end = next + 1;
  }
  return text.slice(start, end);
}

/** Replace (or create) `path` with `content`, atomically; the file keeps its permission bits. */
export async function writeTextFile(params: { path: string; content: string }): Promise<void> {
  const requested = absolute(params.path);
  const target = resolvePhysically(requested);
  if (typeof target !== 'string') throw RequestError.invalidParams({ path: requested }, target.unresolvable);
  let mode: number | undefined;
  try {
    const existing = await stat(target);
    if (!existing.isFile()) throw RequestError.invalidParams({ path: requested }, `${requested} is not a regular file`);
    mode = existing.mode & 0o7777;
  } catch (error) {
    if (error instanceof RequestError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fsError(requested, error);
  }
  const directory = dirname(target);
  const temporary = join(directory, `.${basename(target)}.acp-broker-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  try {
    mkdirParents(directory);
    await writeFile(temporary, params.content, { encoding: 'utf8', flag: 'wx', ...(mode !== undefined ? { mode } : {}) });
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw fsError(requested, error);
  }
}

function absolute(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw RequestError.invalidParams({ path }, `the path must be absolute: ${JSON.stringify(path)}`);
  }
  return path;
}

function fsError(path: string, error: unknown): RequestError {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new RequestError(-32002, `Resource not found: ${path}`, { uri: path });
  return RequestError.internalError({ path }, `${path}: ${describeFsError(error)}`);
}
