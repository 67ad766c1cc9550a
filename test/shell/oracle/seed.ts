/**
 * The workspace (/w) and home (/home/dev) every oracle line starts from, and path resolution over
 * it the way the kernel does it: symlinks followed component by component before `..`, a final
 * dangling link followed to where a write would land.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

export const WORKSPACE = '/w';
export const HOME = '/home/dev';

type Entry = { type: 'dir' } | { type: 'file'; text: string } | { type: 'link'; target: string };

/** Every path of the seed (and the sandbox's own root symlinks), absolute. */
export const SEED: ReadonlyMap<string, Entry> = new Map<string, Entry>([
  ['/w', { type: 'dir' }],
  ['/w/.env', { type: 'file', text: 'TOKEN=secret\n' }],
  ['/w/.env.local', { type: 'file', text: 'TOKEN=local\n' }],
  ['/w/.git', { type: 'dir' }],
  ['/w/.git/config', { type: 'file', text: '[core]\n\tbare = false\n' }],
  ['/w/.git/HEAD', { type: 'file', text: 'ref: refs/heads/main\n' }],
  ['/w/.git/hooks', { type: 'dir' }],
  ['/w/.git/hooks/pre-commit.sample', { type: 'file', text: '#!/bin/sh\n' }],
  ['/w/src', { type: 'dir' }],
  ['/w/src/a.ts', { type: 'file', text: 'export const a = 1;\n' }],
  ['/w/src/b.ts', { type: 'file', text: 'export const b = ".env";\n' }],
  ['/w/src/link', { type: 'link', target: '/home/dev/.ssh' }],
  ['/w/sub', { type: 'dir' }],
  ['/w/sub/notes.txt', { type: 'file', text: 'notes\n' }],
  ['/w/package.json', { type: 'file', text: '{ "name": "w", "scripts": { "test": "vitest" } }\n' }],
  ['/w/README.md', { type: 'file', text: '# w\n' }],
  ['/w/payload', { type: 'file', text: 'rm -rf /\n' }],
  ['/w/files.txt', { type: 'file', text: 'src/a.ts\nsrc/b.ts\n' }],
  ['/w/dangling', { type: 'link', target: '/home/dev/.ssh/authorized_keys' }],
  ['/w/envlink', { type: 'link', target: '.env' }],
  ['/w/hooks', { type: 'link', target: '.git/hooks' }],
  ['/w/homelink', { type: 'link', target: '/home/dev' }],
  ['/home', { type: 'dir' }],
  ['/home/dev', { type: 'dir' }],
  ['/home/dev/.ssh', { type: 'dir' }],
  ['/home/dev/.ssh/id_rsa', { type: 'file', text: 'KEY\n' }],
  ['/home/dev/.aws', { type: 'dir' }],
  ['/home/dev/.aws/credentials', { type: 'file', text: '[default]\n' }],
  ['/home/dev/.bashrc', { type: 'file', text: '# rc\n' }],
  ['/home/dev/.gitconfig', { type: 'file', text: '[user]\n' }],
  ['/bin', { type: 'link', target: 'usr/bin' }],
  ['/sbin', { type: 'link', target: 'usr/sbin' }],
  ['/lib', { type: 'link', target: 'usr/lib' }],
]);

/**
 * Write the seed under `root` as root/w and root/home (the sandbox copies them to /w and /home/dev).
 * `relocate` makes absolute link targets point into root/w and root/home instead (a host copy, for
 * the policy engine's real path canonicalisation).
 */
export function seedTree(root: string, relocate = false): { workspace: string; home: string } {
  const workspace = join(root, 'w');
  const home = join(root, 'home');
  const target = (link: string) => !relocate ? link
    : link === HOME || link.startsWith(`${HOME}/`) ? home + link.slice(HOME.length)
      : link === WORKSPACE || link.startsWith(`${WORKSPACE}/`) ? workspace + link.slice(WORKSPACE.length) : link;
  const place = (path: string) => path.startsWith(`${HOME}/`) || path === HOME ? join(root, 'home', path.slice(HOME.length)) : join(root, path);
  for (const [path, entry] of SEED) {
    if (!path.startsWith(`${WORKSPACE}`) && !path.startsWith(HOME)) continue;
    const at = place(path);
    mkdirSync(dirname(at), { recursive: true });
    if (entry.type === 'dir') mkdirSync(at, { recursive: true });
    else if (entry.type === 'file') writeFileSync(at, entry.text);
    else symlinkSync(target(entry.target), at);
  }
  return { workspace, home };
}

/**
 * Physical resolution of `path` (absolute, or relative to `cwd`) over the seed: each component is
 * looked up after the previous ones were resolved, links are followed (also the last one: a write
 * through a dangling link lands at its target), `..` goes to the parent of the resolved directory.
 */
export function physical(path: string, cwd = '/'): string {
  const parts = (path.startsWith('/') ? path : `${cwd}/${path}`).split('/').filter((p) => p !== '' && p !== '.');
  let current = '/';
  let hops = 0;
  while (parts.length > 0) {
    const part = parts.shift()!;
    if (part === '..') { current = posix.dirname(current); continue; }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    const entry = SEED.get(next);
    if (entry?.type === 'link' && hops++ < 40) {
      const target = entry.target.split('/').filter((p) => p !== '' && p !== '.');
      if (entry.target.startsWith('/')) current = '/';
      parts.unshift(...target);
      continue;
    }
    current = next;
  }
  return current;
}
