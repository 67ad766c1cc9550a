/**
 * The last decisions of the audit log (JSONL, audit/sink.ts), for the inbox. The file is read from
 * its end in chunks, so a log of gigabytes costs as much as one of kilobytes; lines that are not a
 * version-1 decision event (malformed, cut by a concurrent append, other events) are skipped.
 */
import { open } from 'node:fs/promises';

/** One decision as the inbox shows it: every field checked, nothing else of the line kept. */
export interface RecentDecision {
  readonly time: string;
  readonly agent: string | undefined;
  readonly kind: string | undefined;
  readonly title: string | undefined;
  readonly command: string | undefined;
  /** What the agent got: allow, deny, ask, cancelled. */
  readonly decision: string | undefined;
  readonly outcome: string | undefined;
  /** Who or what decided, in words: "rule no-publish", "web inbox", "fallback (deny)". */
  readonly by: string | undefined;
  readonly reason: string | undefined;
  readonly optionId: string | undefined;
  readonly grants: readonly string[];
}

export interface TailOptions {
  /** How many decisions at most (newest last in the file, newest first in the result). */
  readonly limit?: number;
  /** Never read more than this many bytes from the end of the file. */
  readonly maxBytes?: number;
}

const CHUNK = 64 * 1024;
const DEFAULT_LIMIT = 50;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

/** The newest decisions first; a missing file has none. Other read errors reject. */
export async function readRecentDecisions(path: string, options: TailOptions = {}): Promise<readonly RecentDecision[]> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const lines = await tailLines(path, limit * 4 + 16, options.maxBytes ?? DEFAULT_MAX_BYTES);
  const decisions: RecentDecision[] = [];
  for (let i = lines.length - 1; i >= 0 && decisions.length < limit; i--) {
    const decision = parseDecision(lines[i]!);
    if (decision) decisions.push(decision);
  }
  return decisions;
}

/** The function the inbox takes, bound to one audit file. */
export function recentDecisionsFrom(path: string, options: TailOptions = {}): () => Promise<readonly RecentDecision[]> {
  return () => readRecentDecisions(path, options);
}

/** Up to `count` complete last lines (in file order), reading backwards at most `maxBytes`. */
export async function tailLines(path: string, count: number, maxBytes: number): Promise<string[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    const floor = Math.max(0, size - maxBytes);
    const chunks: Buffer[] = [];
    let start = size;
    let newlines = 0;
    // count + 1 newlines guarantee `count` whole lines after the first (possibly partial) one.
    while (start > floor && newlines <= count) {
      const length = Math.min(CHUNK, start - floor);
      start -= length;
      const chunk = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(chunk, 0, length, start);
      const read = chunk.subarray(0, bytesRead);
      for (let at = read.indexOf(NEWLINE); at >= 0; at = read.indexOf(NEWLINE, at + 1)) newlines++;
      chunks.unshift(read);
    }
    // Newlines never occur inside a UTF-8 sequence: split the bytes first, decode whole lines.
    const text = Buffer.concat(chunks);
    const lines: string[] = [];
    let end = text.length;
    while (lines.length < count) {
      const at = end > 0 ? text.lastIndexOf(NEWLINE, end - 1) : -1;
      if (at < 0) {
        // The first piece is a whole line only when the read reached the start of the file.
        if (start === 0 && end > 0) lines.push(text.subarray(0, end).toString('utf8'));
        break;
      }
      if (end > at + 1) lines.push(text.subarray(at + 1, end).toString('utf8'));
      end = at;
    }
    return lines.reverse();
  } finally {
    await handle.close();
  }
}

/** A version-1 decision event, or undefined for anything else. */
function parseDecision(line: string): RecentDecision | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || value.v !== 1 || value.event !== 'decision' || typeof value.time !== 'string') return undefined;
  return {
    time: value.time,
    agent: text(value.agent),
    kind: text(value.kind),
    title: text(value.title),
    command: text(value.command),
    decision: text(value.decision),
    outcome: text(value.outcome),
    by: describeSource(value.source),
    reason: text(value.reason),
    optionId: text(value.optionId),
    grants: Array.isArray(value.grants) ? value.grants.filter((g): g is string => typeof g === 'string') : [],
  };
}

const CHANNELS: Record<string, string> = {
  client: 'the editor', web: 'web inbox', desktop: 'desktop notification', terminal: 'terminal',
};

/** The audit's `source` in words; a source type this reader does not know is shown by its name. */
function describeSource(source: unknown): string | undefined {
  if (!isRecord(source) || typeof source.type !== 'string') return undefined;
  const type = source.type;
  const channel = CHANNELS[type];
  if (channel) return channel;
  switch (type) {
    case 'rule': return typeof source.ruleId === 'string' ? `rule ${source.ruleId}` : 'rule';
    case 'grant': return typeof source.grantId === 'string' ? `grant ${source.grantId}` : 'grant';
    case 'default': return 'policy default';
    case 'unresolvable': return 'not analysable';
    case 'switch_mode_guard': return 'mode switch guard';
    case 'fallback':
    case 'timeout': return typeof source.fallback === 'string' ? `${type} (${source.fallback})` : type;
    case 'cancelled': return typeof source.by === 'string' ? `cancelled (${source.by})` : 'cancelled';
    case 'error': return 'error';
    default: return type;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
