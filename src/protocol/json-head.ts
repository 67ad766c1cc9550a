import type { RpcId } from './jsonrpc.js';

/**
 * The top-level `id` and `method` of a JSON-RPC message, read from the first bytes of its line: for a
 * line too long to parse whole. Reading stops at the first thing it cannot read (the head may end in
 * the middle of a value), so a member that only comes later is not found. As with `JSON.parse`, a
 * repeated key counts with its last value; keys and values may use escapes.
 */
export function topLevelIdAndMethod(head: Buffer): { id?: RpcId; method?: string } {
  const text = head.toString('utf8');
  const found: { id?: RpcId; method?: string } = {};
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return found;
  i = skipSpace(text, i + 1);
  if (text[i] === '}') return found;
  for (;;) {
    const keyEnd = valueEnd(text, i);
    if (text[i] !== '"' || keyEnd === -1) return found;
    const key = parse(text.slice(i, keyEnd));
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return found;
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    if (end === -1) return found;
    if (key === 'id' || key === 'method') {
      const value = parse(text.slice(i, end));
      if (key === 'method') {
        if (typeof value === 'string') found.method = value;
        else delete found.method;
      } else if (typeof value === 'string' || typeof value === 'number' || value === null) {
        found.id = value;
      } else {
        delete found.id;
      }
    }
    i = skipSpace(text, end);
    if (text[i] !== ',') return found;
    i = skipSpace(text, i + 1);
  }
}

/**
 * The top-level `id` of a message whose last member it is (`…,"id":7}`, as codex-acp writes its
 * requests), read from the line's last bytes. Exactly one closing brace may follow the value, so an
 * `id` inside `params` (`…{"id":7}}`) is never taken for the message's own.
 */
export function trailingTopLevelId(tail: Buffer): RpcId | undefined {
  const match = TRAILING_ID.exec(tail.toString('utf8'));
  if (!match) return undefined;
  const value = parse(match[1]!);
  return typeof value === 'string' || typeof value === 'number' || value === null ? value : undefined;
}

const TRAILING_ID = /[{,]\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null)\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?}\s*$/;

function parse(token: string): unknown {
  try {
    return JSON.parse(token);
  } catch {
    return undefined;
  }
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}

/** Where the JSON value starting at `i` ends (exclusive), or -1 if it does not end within `text`. */
function valueEnd(text: string, i: number): number {
  const first = text[i];
  if (first === undefined) return -1;
  if (first !== '"' && first !== '{' && first !== '[') {
    // A number or a literal: it runs to the next delimiter, which must be there to know it is whole.
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === ',' || c === '}' || c === ']' || c === ' ' || c === '\t' || c === '\n' || c === '\r') return j;
    }
    return -1;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      j = stringEnd(text, j);
      if (j === -1) return -1;
      if (depth === 0) return j + 1;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}

/** The index of the quote closing the string that opens at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}
