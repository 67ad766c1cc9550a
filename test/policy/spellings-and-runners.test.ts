/**
 * The bundled default policy against deny rules dodged by spelling, wrapping or an unknown runner:
 * long-option prefixes, programs that run programs, look-through. Everyday lines keep their decisions.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/core/facts.js';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly } from '../../src/facts/paths.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { policyFrom, shell } from '../helpers/harness.js';

const DEFAULT = readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8');

async function decide(line: string) {
  const analyzer = await shell();
  const facts: CallFacts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command: line } }, { workspace: '/w', home: '/home/u', agent: undefined, shell: analyzer, canonicalize: lexicalOnly, fileExists: () => false, listTree: () => [], listGitHistory: () => [] });
  return evaluate(await policyFrom(DEFAULT), facts, { home: '/home/u' }).decision;
}

describe('default policy: denied however it is spelled or wrapped', () => {
  it.each([
    'rm --r --f /',
    'rm --recursive --fo /',
    'git push --force-w origin main',
    'git push --mirr origin',
    'git push --forc origin main',
    'git reset --ha HEAD~1',
    'git clean --f -dx',
    'chmod --rec 777 /',
    'busybox rm -rf /',
    "busybox sh -c 'rm -rf /'",
    "flock /tmp/lk -c 'rm -rf /'",
    'flock /tmp/lk rm -rf /',
    'chroot / rm -rf /',
    'unshare -r rm -rf /',
    'nsenter -t 1 -m rm -rf /',
    'taskset 0x1 rm -rf /',
    'chrt -o 0 rm -rf /',
    'prlimit --nofile=10 rm -rf /',
    'setpriv --nnp rm -rf /',
    'runuser -u root -- rm -rf /',
    "su -mc 'rm -rf /'",
    "sg wheel -c 'rm -rf /'",
    'strace -f rm -rf /',
    "script -qc 'rm -rf /' /dev/null",
    'sshpass -p x rm -rf /',
    'fakeroot rm -rf /',
    'systemd-run --user rm -rf /',
    "trap -- 'rm -rf /' EXIT",
    "npx -c 'rm -rf /'",
    'npx rm -rf /',
    'pnpm exec rm -rf /',
    'pnpm dlx rm -rf /',
    'yarn dlx rm -rf /',
    'bunx rm -rf /',
    'npm x -- rm -rf /',
    "git rebase -x 'rm -rf /' main",
    "watch -n 1 'rm -rf /'",
    'git bisect run rm -rf /',
    "env -S 'rm -rf /'",
    'env --ch / rm -rf .',
    'sudo --us root rm -rf /',
    'timeout --s KILL 5 rm -rf /',
    "ssh host 'rm -rf /'",
    'docker exec c rm -rf /',
    'kubectl exec pod -- rm -rf /',
    'gdb --args rm -rf /',
    'valgrind -q rm -rf /',
    'nohup rm -rf /',
    'noglob rm -rf /',
    'unknown-runner --flag rm -rf /',
    'rg --pre shutdown x .',
    '=rm -rf /',
  ])('%s', async (line) => {
    expect(await decide(line)).toBe('deny');
  });
});

describe('default policy: everyday lines keep their decisions', () => {
  it.each([
    ['git status', 'allow'],
    ['git diff HEAD~1 -- src', 'allow'],
    ['npm test', 'allow'],
    ['npm run lint -- --fix', 'allow'],
    ['echo rm -rf /', 'allow'],
    ["echo 'rm -rf /'", 'allow'],
    ['grep -rn "rm -rf /" src', 'allow'],
    ['git log --oneline', 'allow'],
    ['ls -la src', 'allow'],
    ['rg --files', 'allow'],
  ])('%s → %s', async (line, decision) => {
    expect(await decide(line)).toBe(decision);
  });
});
