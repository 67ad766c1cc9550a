/**
 * Runs shell lines under real bash or zsh inside a bubblewrap sandbox and records, with strace,
 * every exec (with argv) and every file the line opened, created, renamed or removed.
 *
 * The sandbox has no network and a throwaway root: /usr/bin, /usr/sbin (and /bin, /sbin through
 * symlinks) hold stubs named after every program of the host that exit at once (the exec and its
 * argv is all the oracle needs; on x86-64 a static program of a few bytes, elsewhere `true`), except the shells and the programs that only run another program
 * (`timeout`, `env`, `flock`, `script` …), which are real so what they run is traced too. Output-only
 * builtins are disabled (`enable -n` / `disable`) so they go through the stubs; a command with no
 * stub reaches `command_not_found_handle` (bash) / `command_not_found_handler` (zsh), which execs
 * /oracle/nf with the command's argv. Each line runs in a fresh shell with a fresh copy of the
 * workspace (/w) and home (/home/dev) whenever the previous line could have changed them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOME, seedTree, WORKSPACE } from './seed.js';
import { splitBatchTrace, type TraceEvent } from './trace.js';

export type Shell = 'bash' | 'zsh';

/** Programs that run the program they are given: real inside the sandbox, so the inner exec is traced. */
export const REAL_RUNNERS = [
  'timeout', 'nice', 'nohup', 'stdbuf', 'env', 'setsid', 'ionice', 'taskset', 'chrt', 'prlimit', 'setpriv', 'flock', 'script',
  'xargs', 'unshare', 'nsenter', 'chroot', 'runuser',
] as const;
const SHELLS = ['bash', 'sh', 'dash', 'zsh', 'rbash'] as const;
/** Host tools the driver itself uses (never seen by the lines: PATH points at the stubs). */
const DRIVER_TOOLS = ['bash', 'strace', 'timeout', 'cp', 'rm', 'true', 'false'] as const;
const SYSTEM_DIRS = ['/usr/bin', '/usr/sbin', '/usr/local/bin'];

/** Builtins that only print or test: disabled so that they are execs the trace sees. */
const BASH_DISABLED = [':', 'echo', 'printf', 'test', '[', 'true', 'false', 'pwd', 'kill', 'type', 'times', 'help', 'jobs', 'wait',
  'disown', 'suspend', 'compgen', 'complete', 'compopt', 'caller', 'logout', 'ulimit', 'bind'];
const ZSH_DISABLED = [':', 'echo', 'printf', 'test', '[', 'true', 'false', 'pwd', 'kill', 'type', 'times', 'jobs', 'wait', 'disown',
  'suspend', 'ulimit', 'print', 'whence', 'where', 'which'];

export const TRACED_SYSCALLS = [
  'execve', 'execveat', 'open', 'openat', 'openat2', 'creat', 'rename', 'renameat', 'renameat2', 'unlink', 'unlinkat', 'rmdir',
  'mkdir', 'mkdirat', 'link', 'linkat', 'symlink', 'symlinkat', 'truncate', 'mknod', 'mknodat', 'chdir', 'fchdir',
  'clone', 'clone3', 'fork', 'vfork',
];

/** Where the oracle's own files live inside the sandbox; paths under them are not the line's business. */
export const ORACLE_DIRS = ['/oracle', '/otmp', '/log', '/seed'];
export const NOT_FOUND = '/oracle/nf';

export interface Sandbox {
  readonly root: string;
  /** Each line's trace events ([pid, call text]), in the order of the lines. */
  run(lines: readonly string[], shell: Shell): Promise<TraceEvent[][]>;
  /** CPU time (user + system) the sandboxes used so far, strace and every traced process included. */
  cpuSeconds(): number;
  close(): void;
}

function which(program: string): string | undefined {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const path = join(dir, program);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Why the sandbox cannot run here, or undefined when it can. */
export function sandboxProblem(): string | undefined {
  for (const tool of ['bwrap', 'strace', 'zsh', 'bash', 'timeout']) if (!which(tool)) return `${tool} is not installed (.ci/run installs it)`;
  const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-net', '--unshare-pid', '--die-with-parent', 'true'], { encoding: 'utf8' });
  if (probe.status !== 0) return `bwrap cannot create a sandbox here: ${probe.stderr.trim()}`;
  return undefined;
}

export function createSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'acp-oracle-'));
  const stubs = join(root, 'stubs');
  mkdirSync(stubs);
  const names = new Set<string>();
  for (const dir of ['/usr/bin', '/usr/sbin', '/bin', '/sbin', '/usr/local/bin']) {
    try { for (const name of readdirSync(dir)) names.add(name); } catch { /* absent */ }
  }
  for (const name of ['sudo', 'doas', 'pkexec', 'busybox', 'parallel', 'sshpass', 'fakeroot', 'curl', 'wget', 'nc', 'npm', 'npx', 'node', 'git', 'rg',
    'yarn', 'pnpm', 'cargo', 'go', 'python', 'python3', 'pytest', 'make', 'docker', 'kubectl', 'tsc', 'eslint', 'jest', 'vitest']) names.add(name);
  const real = new Set<string>([...SHELLS, ...REAL_RUNNERS].filter((name) => which(name)));
  const staticStubs = process.arch === 'x64';
  const stubTrue = staticStubs ? '/oracle/stub-true' : '/oracle/bin/true';
  const stubFalse = staticStubs ? '/oracle/stub-false' : '/oracle/bin/false';
  for (const name of names) {
    if (name.includes('/') || name === '.' || name === '..') continue;
    const target = real.has(name) ? `/oracle/real/${name}` : name === 'false' ? stubFalse : stubTrue;
    symlinkSync(target, join(stubs, name));
  }
  const etc = join(root, 'etc');
  mkdirSync(etc);
  writeFileSync(join(etc, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\ndev:x:1000:1000:dev:/home/dev:/bin/bash\n');
  writeFileSync(join(etc, 'group'), 'root:x:0:\ndev:x:1000:\n');
  if (existsSync('/etc/ld.so.cache')) copyFileSync('/etc/ld.so.cache', join(etc, 'ld.so.cache'));
  const oracle = join(root, 'oracle');
  mkdirSync(join(oracle, 'zdot'), { recursive: true });
  writeFileSync(join(oracle, 'prelude.bash'), [
    // No redirection here: the prelude's own opens would show in every trace.
    `enable -n ${BASH_DISABLED.map((b) => `'${b}'`).join(' ')}`,
    `command_not_found_handle() { ${NOT_FOUND} "$@"; }`, '',
  ].join('\n'));
  writeFileSync(join(oracle, 'zdot', '.zshenv'), [
    `disable ${ZSH_DISABLED.map((b) => `'${b}'`).join(' ')}`,
    `command_not_found_handler() { ${NOT_FOUND} "$@"; }`, '',
  ].join('\n'));
  writeFileSync(join(oracle, 'driver.bash'), DRIVER);
  chmodSync(join(oracle, 'driver.bash'), 0o755);
  // Mount points for the host binaries bound into the read-only /oracle.
  mkdirSync(join(oracle, 'bin'));
  mkdirSync(join(oracle, 'real'));
  if (staticStubs) {
    // A stub that loads no library makes no call the trace has to stop for: only its exec.
    writeFileSync(join(oracle, 'stub-true'), exitProgram(0), { mode: 0o755 });
    writeFileSync(join(oracle, 'stub-false'), exitProgram(1), { mode: 0o755 });
    writeFileSync(join(oracle, 'nf'), exitProgram(0), { mode: 0o755 });
  } else writeFileSync(join(oracle, 'nf'), '');
  for (const tool of DRIVER_TOOLS) writeFileSync(join(oracle, 'bin', tool), '');
  for (const name of real) writeFileSync(join(oracle, 'real', name), '');
  seedTree(join(root, 'seed'));
  const log = join(root, 'log');
  mkdirSync(log);
  let batch = 0;
  let cpuSeconds = 0;

  const bwrapArgs = (batchDir: string): string[] => {
    const args = [
      '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session',
      '--tmpfs', '/', '--dev', '/dev', '--proc', '/proc',
      '--dir', '/usr', '--ro-bind', '/usr/lib', '/usr/lib',
      '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
      '--ro-bind', join(root, 'etc'), '/etc',
      '--ro-bind', oracle, '/oracle', '--ro-bind', join(root, 'seed'), '/seed', '--bind', batchDir, '/log',
      '--tmpfs', '/tmp', '--tmpfs', '/otmp', '--dir', '/w', '--dir', '/home/dev', '--tmpfs', '/w', '--tmpfs', '/home/dev',
    ];
    for (const dir of ['/usr/lib64', '/usr/libexec', '/usr/share/zsh']) {
      if (existsSync(dir)) args.push('--ro-bind', dir, dir);
    }
    if (existsSync('/usr/lib64')) args.push('--symlink', 'usr/lib64', '/lib64');
    for (const dir of SYSTEM_DIRS) args.push('--ro-bind', stubs, dir);
    if (!staticStubs) args.push('--ro-bind', NOT_FOUND_TARGET(), NOT_FOUND);
    for (const tool of DRIVER_TOOLS) args.push('--ro-bind', which(tool)!, `/oracle/bin/${tool}`);
    for (const name of real) args.push('--ro-bind', which(name)!, `/oracle/real/${name}`);
    // The outer shell reports the CPU time of everything below it (strace included) to /log/cpu.
    const traced = TRACED_DRIVER.map((word) => `'${word}'`).join(' ');
    args.push('--chdir', '/', '--clearenv', '--setenv', 'PATH', '/oracle/bin', '/oracle/bin/bash', '-c', `${traced}; times > /log/cpu`);
    return args;
  };

  return {
    root,
    cpuSeconds: () => cpuSeconds,
    async run(lines, shell) {
      const batchDir = join(log, `b${++batch}`);
      mkdirSync(batchDir);
      writeFileSync(join(batchDir, 'in'), lines.map((line) => `${line}\0`).join(''));
      writeFileSync(join(batchDir, 'shell'), shell);
      const child = spawn('bwrap', bwrapArgs(batchDir), { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      if (code !== 0) throw new Error(`sandbox batch failed (${code}): ${stderr.slice(-2000)}`);
      const traces = splitBatchTrace(readFileSync(join(batchDir, 'trace'), 'latin1'), lines.length);
      cpuSeconds += cpuOf(existsSync(join(batchDir, 'cpu')) ? readFileSync(join(batchDir, 'cpu'), 'utf8') : '');
      if (!process.env.ORACLE_KEEP) rmSync(batchDir, { recursive: true, force: true });
      return traces;
    },
    close() {
      if (!process.env.ORACLE_KEEP) rmSync(root, { recursive: true, force: true });
    },
  };
}

const NOT_FOUND_TARGET = () => which('true')!;

/** A static x86-64 Linux program that only calls exit(code): 132 bytes, no loader, no library. */
function exitProgram(code: number): Buffer {
  const header = Buffer.alloc(64);
  const segment = Buffer.alloc(56);
  const text = Buffer.from([0xbf, code, 0, 0, 0, 0xb8, 60, 0, 0, 0, 0x0f, 0x05]); // mov edi, code; mov eax, 60 (exit); syscall
  const size = BigInt(header.length + segment.length + text.length);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]).copy(header, 0); // ELF, 64-bit, little-endian
  header.writeUInt16LE(2, 16); // executable
  header.writeUInt16LE(0x3e, 18); // x86-64
  header.writeUInt32LE(1, 20);
  header.writeBigUInt64LE(0x400000n + 120n, 24); // entry: the code after both headers
  header.writeBigUInt64LE(64n, 32); // program headers right after this one
  header.writeUInt16LE(64, 52);
  header.writeUInt16LE(56, 54);
  header.writeUInt16LE(1, 56);
  segment.writeUInt32LE(1, 0); // PT_LOAD
  segment.writeUInt32LE(5, 4); // read + execute
  segment.writeBigUInt64LE(0x400000n, 16);
  segment.writeBigUInt64LE(0x400000n, 24);
  segment.writeBigUInt64LE(size, 32);
  segment.writeBigUInt64LE(size, 40);
  segment.writeBigUInt64LE(0x1000n, 48);
  return Buffer.concat([header, segment, text]);
}

/** Sum of the children's user and system time in bash's `times` output (its second line). */
function cpuOf(times: string): number {
  const line = times.trim().split('\n')[1] ?? '';
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

/**
 * Inside the sandbox, under one strace for the whole batch: for each NUL-terminated line of
 * /log/in, run it in a fresh shell (its last argument, `oracle-line-N`, marks the process tree of
 * line N in the trace), then reset /w, /home/dev and /tmp from /seed if anything in them is newer
 * than the last reset (checked with builtins only, so the check adds no process).
 */
const DRIVER = [
  'set -u',
  'shopt -s dotglob globstar nullglob',
  'shell=$(< /log/shell)',
  'reset() {',
  '  rm -rf /w/* /home/dev/* /tmp/* /otmp/* 2>/dev/null',
  '  cp -a /seed/w/. /w/ && cp -a /seed/home/. /home/dev/',
  '  : > /otmp/.reset',
  '  watched=(/w /w/** /home/dev /home/dev/**)',
  '}',
  'reset',
  'i=0',
  "while IFS= read -r -d '' line; do",
  '  cd /w',
  '  if [ "$shell" = zsh ]; then run=(/usr/bin/zsh -c "$line" "oracle-line-$i"); else run=(/usr/bin/bash -c "$line" "oracle-line-$i"); fi',
  `  HOME=${HOME} PATH=/usr/local/bin:/usr/bin:/bin PWD=${WORKSPACE} BASH_ENV=/oracle/prelude.bash ZDOTDIR=/oracle/zdot \\`,
  '    TMPDIR=/otmp TMPPREFIX=/otmp/zsh SHELL=/bin/bash USER=dev LANG=C \\',
  '    /oracle/bin/timeout -s KILL 20 "${run[@]}" </dev/null >/dev/null 2>&1',
  '  cd /',
  '  # Not older than the reset mark: written since (tmpfs times are coarse, so equal counts).',
  '  dirty=(/tmp/*)',
  '  for f in "${watched[@]}"; do',
  '    if [[ ! $f -ot /otmp/.reset ]]; then dirty+=("$f"); break; fi',
  '  done',
  '  if [ ${#dirty[@]} -gt 0 ]; then reset; fi',
  '  i=$((i + 1))',
  'done < /log/in',
  '',
].join('\n');

/** The command bwrap runs: the driver under strace. */
const TRACED_DRIVER = ['/oracle/bin/strace', '--seccomp-bpf', '-f', '-qq', '-xx', '-v', '-y', '-s', '65536', '-o', '/log/trace', '-e', `trace=${TRACED_SYSCALLS.join(',')}`,
  '/oracle/bin/bash', '/oracle/driver.bash'];
