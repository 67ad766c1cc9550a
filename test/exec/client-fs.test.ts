import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RequestError } from '@agentclientprotocol/sdk';
import { readTextFile, sliceLines, writeTextFile } from '../../src/exec/client-fs.js';
import { tempDir } from '../helpers/cli.js';

// exec's fs/read_text_file and fs/write_text_file, on real files.
describe('client fs', () => {
  it('reads a file whole, or `limit` lines from 1-based `line`, line ends kept', async () => {
    const file = join(tempDir(), 'five.txt');
    writeFileSync(file, 'one\ntwo\nthree\nfour\nfive');
    expect(await readTextFile({ path: file })).toBe('one\ntwo\nthree\nfour\nfive');
    expect(await readTextFile({ path: file, line: 2, limit: 2 })).toBe('two\nthree\n');
    expect(await readTextFile({ path: file, line: 4 })).toBe('four\nfive');
    expect(await readTextFile({ path: file, limit: 1 })).toBe('one\n');
    expect(await readTextFile({ path: file, line: 5, limit: 10 })).toBe('five');
    expect(await readTextFile({ path: file, line: 9 })).toBe('');
    expect(sliceLines('a\nb\n', 0, 1)).toBe('a\n');
    expect(sliceLines('a\nb\n', 1, 0)).toBe('');
  });

  it('refuses a relative path with a JSON-RPC invalid-params error, touching nothing', async () => {
    const dir = tempDir();
    process.chdir(dir);
    await expect(readTextFile({ path: 'five.txt' })).rejects.toMatchObject({ code: -32602 });
    const write = writeTextFile({ path: 'made.txt', content: 'x' });
    await expect(write).rejects.toBeInstanceOf(RequestError);
    await expect(write).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('absolute') });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a missing file reads as empty text (a new buffer); a directory is an error', async () => {
    const dir = tempDir();
    expect(await readTextFile({ path: join(dir, 'nope.txt') })).toBe('');
    await expect(readTextFile({ path: dir })).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('is a directory') });
  });

  it('writes a new file, creating missing parent directories, and leaves no temporary file', async () => {
    const dir = tempDir();
    const file = join(dir, 'a', 'b', 'new.txt');
    await writeTextFile({ path: file, content: 'héllo\n' });
    expect(readFileSync(file, 'utf8')).toBe('héllo\n');
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['new.txt']);
  });

  it('replaces a file atomically: the old inode is never written into, and its mode is kept', async () => {
    const dir = tempDir();
    const file = join(dir, 'script.sh');
    writeFileSync(file, 'old content that is longer than the new one\n');
    chmodSync(file, 0o750);
    const before = statSync(file).ino;
    await writeTextFile({ path: file, content: 'new\n' });
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    const after = statSync(file);
    expect(after.ino).not.toBe(before); // a rename, not a rewrite in place
    expect(after.mode & 0o777).toBe(0o750);
    expect(readdirSync(dir)).toEqual(['script.sh']);
  });

  it('writes through a symbolic link to where it points (the path the broker judged), keeping the link', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'target.txt'), 'old');
    symlinkSync(join(dir, 'real', 'target.txt'), join(dir, 'link.txt'));
    await writeTextFile({ path: join(dir, 'link.txt'), content: 'through the link' });
    expect(readFileSync(join(dir, 'real', 'target.txt'), 'utf8')).toBe('through the link');
    expect(statSync(join(dir, 'link.txt')).isFile()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['link.txt', 'real']);
  });

  it('a directory is not a file to write: refused, nothing changed', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    await expect(writeTextFile({ path: join(dir, 'sub'), content: 'x' })).rejects.toMatchObject({ code: -32602 });
    expect(statSync(join(dir, 'sub')).isDirectory()).toBe(true);
  });
});
