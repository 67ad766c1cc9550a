/**
 * git's object formats, read as git reads them (SHA-1 repositories only): a loose object's header
 * (`blob 123\0`, the start of its zlib stream), a pack index v2 (fanout, sorted names, offsets) and
 * a pack entry's header (type bits, OFS/REF delta bases), a tag's target. Pure: bytes come from the
 * caller's reader (git-object-store.ts does the I/O).
 */

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** A pack entry: a whole object of a type, or a delta whose type is its base's. */
export type PackEntry =
  | { readonly type: ObjectType; readonly dataOffset: number; readonly size: number }
  | { readonly type: 'ofs-delta'; readonly baseOffset: number; readonly dataOffset: number; readonly size: number }
  | { readonly type: 'ref-delta'; readonly baseId: string; readonly dataOffset: number; readonly size: number }
  | { readonly type: 'invalid' };

const PACK_TYPES: Readonly<Record<number, ObjectType>> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const HASH_BYTES = 20;

/** The type in an inflated loose object's start (`TYPE SIZE\0`); undefined if the header is not whole or not valid. */
export function looseObjectType(inflatedStart: Uint8Array): ObjectType | 'incomplete' | undefined {
  const nul = inflatedStart.indexOf(0);
  if (nul === -1) return inflatedStart.length < 32 ? 'incomplete' : undefined;
  const match = /^(commit|tree|blob|tag) (\d+)$/.exec(Buffer.from(inflatedStart.subarray(0, nul)).toString('latin1'));
  return match ? match[1] as ObjectType : undefined;
}

/** The body of an inflated loose object (after `TYPE SIZE\0`). */
export function looseObjectBody(inflated: Uint8Array): Uint8Array {
  return inflated.subarray(inflated.indexOf(0) + 1);
}

/** The object a tag names: its `object HEX` first line (the `type` line is the tagger's claim, not checked by readers). */
export function tagTarget(body: Uint8Array): string | undefined {
  const match = /^object ([0-9a-f]{40})\n/.exec(Buffer.from(body.subarray(0, 64)).toString('latin1'));
  return match?.[1];
}

/** The entry header at `offset` of a pack, from the bytes starting there (at least 32 of them, fewer at the pack's end). */
export function packEntry(bytes: Uint8Array, offset: number): PackEntry {
  let at = 0;
  let byte = bytes[at++];
  if (byte === undefined) return { type: 'invalid' };
  const typeBits = (byte >> 4) & 7;
  // The inflated size: 4 bits, then little-endian 7-bit groups.
  let size = byte & 15;
  for (let shift = 4; byte! & 0x80; shift += 7) {
    byte = bytes[at++];
    if (byte === undefined || at > 10) return { type: 'invalid' };
    size += (byte & 0x7f) * 2 ** shift;
  }
  const whole = PACK_TYPES[typeBits];
  if (whole) return { type: whole, dataOffset: offset + at, size };
  if (typeBits === 6) {
    // git's offset encoding: big-endian 7-bit groups, each continuation adding one (pack-format.txt).
    byte = bytes[at++];
    if (byte === undefined) return { type: 'invalid' };
    let distance = byte & 0x7f;
    while (byte! & 0x80) {
      byte = bytes[at++];
      if (byte === undefined || at > 12) return { type: 'invalid' };
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    return distance > 0 && distance <= offset ? { type: 'ofs-delta', baseOffset: offset - distance, dataOffset: offset + at, size } : { type: 'invalid' };
  }
  if (typeBits === 7) {
    if (bytes.length < at + HASH_BYTES) return { type: 'invalid' };
    return { type: 'ref-delta', baseId: Buffer.from(bytes.subarray(at, at + HASH_BYTES)).toString('hex'), dataOffset: offset + at + HASH_BYTES, size };
  }
  return { type: 'invalid' };
}

/** Positional reads of one file: `length` bytes at `position` (fewer at its end). */
export type RangeReader = (position: number, length: number) => Uint8Array;

/** A pack index, version 2: how many names, and reads of its tables. */
export interface PackIndex {
  readonly read: RangeReader;
  readonly count: number;
  /** fanout[b]: how many names start with a byte ≤ b. */
  readonly fanout: readonly number[];
}

const IDX_MAGIC = [0xff, 0x74, 0x4f, 0x63];
const IDX_HEADER = 8;
const FANOUT_BYTES = 256 * 4;

/** The index's header and fanout; undefined when it is not a version-2 index. */
export function openPackIndex(read: RangeReader): PackIndex | undefined {
  const header = read(0, IDX_HEADER + FANOUT_BYTES);
  if (header.length < IDX_HEADER + FANOUT_BYTES || IDX_MAGIC.some((byte, i) => header[i] !== byte)) return undefined;
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (view.getUint32(4) !== 2) return undefined;
  const fanout: number[] = [];
  for (let b = 0; b < 256; b++) fanout.push(view.getUint32(IDX_HEADER + b * 4));
  if (fanout.some((n, b) => b > 0 && n < fanout[b - 1]!)) return undefined;
  return { read, count: fanout[255]!, fanout };
}

/** The full names in the index starting with `prefix` (lower-case hex, at least 2 digits), at most `limit`, with their positions. */
export function indexMatches(index: PackIndex, prefix: string, limit: number): { readonly id: string; readonly position: number }[] {
  const first = parseInt(prefix.slice(0, 2), 16);
  let low = first === 0 ? 0 : index.fanout[first - 1]!;
  let high = index.fanout[first]!;
  const nameAt = (position: number) => Buffer.from(index.read(IDX_HEADER + FANOUT_BYTES + position * HASH_BYTES, HASH_BYTES)).toString('hex');
  // The first name not below the prefix (names are sorted; hex order is byte order).
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (nameAt(middle) < prefix) low = middle + 1;
    else high = middle;
  }
  const found: { id: string; position: number }[] = [];
  for (let position = low; position < index.count && found.length < limit; position++) {
    const id = nameAt(position);
    if (!id.startsWith(prefix)) break;
    found.push({ id, position });
  }
  return found;
}

/** The pack offset of the object at `position` of the index (large offsets through the 64-bit table). */
export function indexOffset(index: PackIndex, position: number): number | undefined {
  const tables = IDX_HEADER + FANOUT_BYTES + index.count * (HASH_BYTES + 4);
  const small = index.read(tables + position * 4, 4);
  if (small.length < 4) return undefined;
  const value = new DataView(small.buffer, small.byteOffset, 4).getUint32(0);
  if ((value & 0x80000000) === 0) return value;
  const large = index.read(tables + index.count * 4 + (value & 0x7fffffff) * 8, 8);
  if (large.length < 8) return undefined;
  const offset = new DataView(large.buffer, large.byteOffset, 8).getBigUint64(0);
  return offset <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(offset) : undefined;
}
