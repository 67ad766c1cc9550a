/**
 * A repository's objects, read-only from its object directory as git reads them: loose objects
 * (`objects/xx/…`) and packs (`objects/pack/*.idx` v2, then the entry's type bits; a delta's type
 * is its base's, OFS and REF bases followed). `object` inflates only a header; `content` inflates
 * an object whole and applies its deltas (git-object-content.ts), for trees and commits. git itself is never
 * run: a repository's config can make it run programs. Anything not read with certainty is unknown.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { constants, inflateSync } from 'node:zlib';
import {
  indexMatches, indexOffset, looseObjectBody, looseObjectType, openPackIndex, packEntry, tagTarget,
  type ObjectType, type PackIndex, type RangeReader,
} from './git-object-format.js';
import { applyDelta } from './git-object-content.js';

export interface Unknown {
  readonly unknown: string;
}

/** What an object is: its type, and for a tag the object it names. */
export interface StoredObject {
  readonly type: ObjectType;
  readonly target?: string;
}

/** Delta chains longer than this are not followed (git's own default maximum depth is 50). */
const MAX_DELTA_DEPTH = 4095;
/** Compressed bytes read for a tag's first line (inflated, at most about a megabyte). */
const TAG_START = 1024;

/** An object's type and whole content (after its header). */
export interface ObjectContent {
  readonly type: ObjectType;
  readonly body: Uint8Array;
}

/** Objects larger than this are not read whole (a tree or commit never is one). */
const MAX_CONTENT = 64 << 20;

export class ObjectStore {
  /** Pack objects read whole, by `PACK@OFFSET`: delta bases are shared along chains. Lives as long as the store (one decision). */
  private readonly contents = new Map<string, ObjectContent>();
  /** Pack files kept open while objects are read whole (a walk reads thousands). */
  private readonly packFiles = new Map<string, number>();

  private packs: { readonly name: string; readonly index: PackIndex; readonly close: () => void }[] | undefined;

  constructor(private readonly objectsDir: string) {}

  /** Full ids of the objects whose id starts with `prefix` (lower-case hex), up to two distinct. */
  find(prefix: string): readonly string[] | Unknown {
    const found = new Set<string>();
    const directory = prefix.slice(0, 2);
    try {
      for (const name of readdirSync(`${this.objectsDir}/${directory}`)) {
        if (/^[0-9a-f]{38}$/.test(name) && `${directory}${name}`.startsWith(prefix)) found.add(`${directory}${name}`);
      }
    } catch (error) {
      if (!isMissing(error)) return { unknown: `the object directory ${this.objectsDir}/${directory} cannot be read` };
    }
    const packs = this.openPacks();
    if ('unknown' in packs) return packs;
    for (const pack of packs) {
      for (const match of indexMatches(pack.index, prefix, 2)) found.add(match.id);
      if (found.size > 1) break;
    }
    return [...found].slice(0, 2);
  }

  /** The type of the object `id` (full, lower-case), read from its loose file or a pack; undefined when it is in neither. */
  object(id: string, depth = 0): StoredObject | Unknown | undefined {
    if (depth > MAX_DELTA_DEPTH) return { unknown: `object ${id}: a delta chain deeper than ${MAX_DELTA_DEPTH}` };
    const loose = this.looseObject(id);
    if (loose !== undefined) return loose;
    const packs = this.openPacks();
    if ('unknown' in packs) return packs;
    for (const pack of packs) {
      const [match] = indexMatches(pack.index, id, 1);
      if (match && match.id === id) return this.packObject(pack.name, pack.index, match.position, depth);
    }
    return undefined;
  }

  /** The object `id` whole, deltas applied; undefined when it is in no loose file or pack here. */
  content(id: string, depth = 0): ObjectContent | Unknown | undefined {
    if (depth > MAX_DELTA_DEPTH) return { unknown: `object ${id}: a delta chain deeper than ${MAX_DELTA_DEPTH}` };
    const packs = this.openPacks();
    if ('unknown' in packs) return packs;
    for (const pack of packs) {
      const [match] = indexMatches(pack.index, id, 1);
      if (!match || match.id !== id) continue;
      const offset = indexOffset(pack.index, match.position);
      return offset === undefined ? { unknown: `an offset in ${pack.name}.idx cannot be read` } : this.packContent(pack.name, offset, depth);
    }
    const path = `${this.objectsDir}/${id.slice(0, 2)}/${id.slice(2)}`;
    let compressed: Buffer | undefined;
    try {
      compressed = readFileSync(path);
    } catch (error) {
      if (!isMissing(error)) return { unknown: `the loose object ${path} cannot be read` };
    }
    if (compressed) {
      const inflated = inflateWhole(compressed);
      const header = inflated && /^(commit|tree|blob|tag) (\d+)\0/.exec(Buffer.from(inflated.subarray(0, 32)).toString('latin1'));
      const body = header && inflated.subarray(header[0].length);
      return header && body && body.length === Number(header[2]) ? { type: header[1] as ObjectType, body } : { unknown: `the loose object ${path} cannot be inflated` };
    }
    return undefined;
  }

  private packContent(name: string, offset: number, depth: number): ObjectContent | Unknown {
    const key = `${name}@${offset}`;
    const cached = this.contents.get(key);
    if (cached) return cached;
    const packPath = `${this.objectsDir}/pack/${name}.pack`;
    if (depth > MAX_DELTA_DEPTH) return { unknown: `a delta chain in ${packPath} deeper than ${MAX_DELTA_DEPTH}` };
    let fd = this.packFiles.get(name);
    try {
      fd ??= openSync(packPath, 'r');
    } catch {
      return { unknown: `the pack ${packPath} cannot be read` };
    }
    this.packFiles.set(name, fd);
    let entry: ReturnType<typeof packEntry>;
    let data: Uint8Array | undefined;
    {
      const read = reader(fd);
      entry = packEntry(read(offset, 32), offset);
      if (entry.type === 'invalid' || entry.size > MAX_CONTENT) return { unknown: `an entry of ${packPath} cannot be read` };
      // The compressed length is not stored: read a little more than the size until it inflates whole.
      for (let length = entry.size + 64 + (entry.size >> 3); data === undefined; length *= 2) {
        const chunk = read(entry.dataOffset, length);
        const inflated = inflateStart(chunk);
        if (inflated && inflated.length >= entry.size) data = inflated.subarray(0, entry.size);
        else if (!inflated || chunk.length < length) return { unknown: `an entry of ${packPath} cannot be inflated` };
      }
    }
    let content: ObjectContent | Unknown | undefined;
    if (entry.type === 'ofs-delta' || entry.type === 'ref-delta') {
      const base = entry.type === 'ofs-delta' ? this.packContent(name, entry.baseOffset, depth + 1) : this.content(entry.baseId, depth + 1);
      if (base === undefined || 'unknown' in base) return base ?? { unknown: `a delta in ${packPath} whose base is not in the repository` };
      const body = applyDelta(base.body, data);
      content = body ? { type: base.type, body } : { unknown: `a delta in ${packPath} does not apply to its base` };
    } else content = { type: entry.type, body: data };
    if (!('unknown' in content) && content.type !== 'blob') this.contents.set(key, content);
    return content;
  }

  /** Close the packs' files. */
  close(): void {
    for (const pack of this.packs ?? []) pack.close();
    this.packs = undefined;
    for (const fd of this.packFiles.values()) closeSync(fd);
    this.packFiles.clear();
  }

  private looseObject(id: string): StoredObject | Unknown | undefined {
    const path = `${this.objectsDir}/${id.slice(0, 2)}/${id.slice(2)}`;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      return isMissing(error) ? undefined : { unknown: `the loose object ${path} cannot be read` };
    }
    try {
      const read = reader(fd);
      const inflated = inflateStart(read(0, 256));
      let type = inflated && looseObjectType(inflated);
      // A header not whole in 256 compressed bytes (a large dynamic Huffman table): read more.
      if (type === 'incomplete') {
        const more = inflateStart(read(0, 65_536));
        type = more && looseObjectType(more);
      }
      if (type === undefined || type === 'incomplete') return { unknown: `the loose object ${path} has no valid header` };
      if (type !== 'tag') return { type };
      const body = inflateStart(read(0, TAG_START));
      const target = body && tagTarget(looseObjectBody(body));
      return target ? { type, target } : { unknown: `the tag ${id} names no object that can be read` };
    } finally {
      closeSync(fd);
    }
  }

  private packObject(name: string, index: PackIndex, position: number, depth: number): StoredObject | Unknown {
    let offset = indexOffset(index, position);
    const packPath = `${this.objectsDir}/pack/${name}.pack`;
    let fd: number;
    try {
      fd = openSync(packPath, 'r');
    } catch {
      return { unknown: `the pack ${packPath} cannot be read` };
    }
    try {
      const read = reader(fd);
      let viaDelta = false;
      for (let hops = 0; offset !== undefined && hops <= MAX_DELTA_DEPTH; hops++) {
        const entry = packEntry(read(offset, 32), offset);
        if (entry.type === 'invalid') break;
        if (entry.type === 'ofs-delta') {
          viaDelta = true;
          offset = entry.baseOffset;
          continue;
        }
        if (entry.type === 'ref-delta') {
          const base = this.object(entry.baseId, depth + hops + 1);
          if (base === undefined) return { unknown: `a delta in ${packPath} whose base ${entry.baseId} is not in the repository` };
          // A tag is read whole for its target; through a delta it is not (deltas are not applied).
          return 'unknown' in base || base.type !== 'tag' ? base : { unknown: `the tag in ${packPath} is stored as a delta` };
        }
        if (entry.type !== 'tag') return { type: entry.type };
        if (viaDelta) return { unknown: `the tag in ${packPath} is stored as a delta` };
        const body = inflateStart(read(entry.dataOffset, TAG_START));
        const target = body && tagTarget(body);
        return target ? { type: 'tag', target } : { unknown: `a tag in ${packPath} names no object that can be read` };
      }
      return { unknown: `an entry of ${packPath} cannot be read` };
    } finally {
      closeSync(fd);
    }
  }

  private openPacks(): { readonly name: string; readonly index: PackIndex; readonly close: () => void }[] | Unknown {
    if (this.packs) return this.packs;
    let names: string[];
    try {
      names = readdirSync(`${this.objectsDir}/pack`).filter((name) => name.endsWith('.idx')).map((name) => name.slice(0, -'.idx'.length)).sort();
    } catch (error) {
      if (!isMissing(error)) return { unknown: `the pack directory ${this.objectsDir}/pack cannot be read` };
      names = [];
    }
    const packs: { name: string; index: PackIndex; close: () => void }[] = [];
    for (const name of names) {
      let fd: number;
      try {
        fd = openSync(`${this.objectsDir}/pack/${name}.idx`, 'r');
      } catch {
        for (const pack of packs) pack.close();
        return { unknown: `the pack index ${name}.idx cannot be read` };
      }
      const index = openPackIndex(indexReader(fd));
      if (!index) {
        closeSync(fd);
        for (const pack of packs) pack.close();
        return { unknown: `the pack index ${name}.idx is not a version-2 index` };
      }
      packs.push({ name, index, close: () => closeSync(fd) });
    }
    this.packs = packs;
    return packs;
  }
}

/** Indexes up to this size are read into memory once: a lookup probes about 20 names. */
const MAX_INDEX_IN_MEMORY = 8 << 20;

function indexReader(fd: number): RangeReader {
  const size = fstatSync(fd).size;
  if (size > MAX_INDEX_IN_MEMORY) return reader(fd);
  const bytes = reader(fd)(0, size);
  return (position, length) => bytes.subarray(position, position + length);
}

function reader(fd: number): RangeReader {
  return (position, length) => {
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, position);
    return buffer.subarray(0, read);
  };
}

/** What the start of a zlib stream inflates to (a truncated stream gives what it has); undefined when it is not zlib. */
function inflateStart(compressed: Uint8Array): Uint8Array | undefined {
  try {
    return inflateSync(compressed, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return undefined;
  }
}

/** A whole zlib stream inflated; undefined when it is not one. */
function inflateWhole(compressed: Uint8Array): Uint8Array | undefined {
  try {
    return inflateSync(compressed);
  } catch {
    return undefined;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
