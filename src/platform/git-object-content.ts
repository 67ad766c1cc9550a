/**
 * The content of git objects, read as git reads it (SHA-1 only): a pack delta applied to its base
 * (copy/insert instructions, pack-format.txt), a tree's entries (`MODE NAME\0` and 20 id bytes), a
 * commit's tree and parents (its header lines). Pure: git-object-store.ts reads the bytes.
 * Anything malformed is undefined: the caller makes it unknown.
 */

export interface TreeEntry {
  readonly mode: string;
  readonly name: string;
  readonly id: string;
}

export interface CommitLinks {
  readonly tree: string;
  readonly parents: readonly string[];
}

/** git's delta size header: little-endian 7-bit groups. */
function deltaSize(delta: Uint8Array, start: number): { readonly value: number; readonly next: number } | undefined {
  let value = 0;
  let at = start;
  for (let shift = 0; ; shift += 7) {
    const byte = delta[at++];
    if (byte === undefined || shift > 49) return undefined;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return { value, next: at };
  }
}

/** The object a delta makes from its base; undefined when the delta does not fit the base. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array | undefined {
  const baseSize = deltaSize(delta, 0);
  if (!baseSize || baseSize.value !== base.length) return undefined;
  const resultSize = deltaSize(delta, baseSize.next);
  if (!resultSize) return undefined;
  const result = new Uint8Array(resultSize.value);
  let written = 0;
  let at = resultSize.next;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += delta[at++]! * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (16 << bit)) size += delta[at++]! * 2 ** (8 * bit);
      if (size === 0) size = 0x10000;
      if (at > delta.length || offset + size > base.length || written + size > result.length) return undefined;
      result.set(base.subarray(offset, offset + size), written);
      written += size;
    } else if (op > 0) {
      if (at + op > delta.length || written + op > result.length) return undefined;
      result.set(delta.subarray(at, at + op), written);
      written += op;
      at += op;
    } else return undefined;
  }
  return written === result.length ? result : undefined;
}

/** A tree's entries; undefined when it is not a well-formed tree. */
export function treeEntries(body: Uint8Array): readonly TreeEntry[] | undefined {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = space === -1 ? -1 : body.indexOf(0, space);
    if (nul === -1 || nul + 21 > body.length) return undefined;
    const mode = Buffer.from(body.subarray(at, space)).toString('latin1');
    const name = Buffer.from(body.subarray(space + 1, nul)).toString('utf8');
    if (!/^[0-7]{5,6}$/.test(mode) || name === '' || name.includes('/')) return undefined;
    entries.push({ mode, name, id: Buffer.from(body.subarray(nul + 1, nul + 21)).toString('hex') });
    at = nul + 21;
  }
  return entries;
}

/** A commit's tree and parents, from its header; undefined when the header is not one git writes. */
export function commitLinks(body: Uint8Array): CommitLinks | undefined {
  const header = Buffer.from(body.subarray(0, Math.min(body.length, 1 << 16))).toString('latin1').split('\n');
  const tree = /^tree ([0-9a-f]{40})$/.exec(header[0] ?? '')?.[1];
  if (!tree) return undefined;
  const parents: string[] = [];
  for (let line = 1; line < header.length; line++) {
    const parent = /^parent ([0-9a-f]{40})$/.exec(header[line]!)?.[1];
    if (!parent) break;
    parents.push(parent);
  }
  return { tree, parents };
}
