/**
 * The paths in a git index (`.git/index`, versions 2 and 3, read as git writes them): `git diff`
 * and `git diff --cached` print staged content, which may be in no commit. Pure parsing of the
 * file's bytes; a split or sparse index, version 4 (prefix-compressed paths) or anything malformed
 * is unknown. Checksums are not verified: a path list is all that is taken.
 */
export function indexPaths(bytes: Uint8Array): readonly string[] | { readonly unknown: string } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'DIRC') return { unknown: 'the index has no DIRC header' };
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) return { unknown: `the index is version ${version}, not read here` };
  const count = view.getUint32(8);
  const paths: string[] = [];
  let at = 12;
  for (let entry = 0; entry < count; entry++) {
    // ctime, mtime, dev, ino, mode, uid, gid, size (40 bytes), the object id (20), flags (2).
    if (at + 62 > bytes.length) return { unknown: 'the index ends inside an entry' };
    const flags = view.getUint16(at + 60);
    const extended = (flags & 0x4000) !== 0;
    if (extended && version < 3) return { unknown: 'an index entry has extended flags in version 2' };
    const start = at + 62 + (extended ? 2 : 0);
    const end = bytes.indexOf(0, start);
    if (end === -1) return { unknown: 'an index path is not terminated' };
    paths.push(Buffer.from(bytes.subarray(start, end)).toString('utf8'));
    // Entries are padded with NULs to a multiple of 8 bytes (1 to 8 of them).
    at += Math.ceil((end - at + 1) / 8) * 8;
  }
  // Extensions: a split index (`link`) keeps entries in another file, a sparse one (`sdir`) folds directories.
  while (at + 8 <= bytes.length - 20) {
    const signature = Buffer.from(bytes.subarray(at, at + 4)).toString('latin1');
    if (signature === 'link' || signature === 'sdir') return { unknown: `the index has the ${signature} extension: entries not in this file` };
    at += 8 + view.getUint32(at + 4);
  }
  return paths;
}
