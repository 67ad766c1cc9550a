/**
 * More programs that run a program given in their arguments: namespaces and scheduling
 * (util-linux), tracers, sessions, remote and container runners. Grammars from the programs'
 * `--help` / man pages; `abbreviations` only where the long list is complete.
 */
import type { WrapperSpec } from './wrapper-spec.js';

const HELP = ['help', 'version'];

const DOCKER_RUN_FLAGS = [
  'detach', 'disable-content-trust', 'init', 'interactive', 'no-healthcheck', 'oom-kill-disable', 'privileged',
  'publish-all', 'quiet', 'read-only', 'rm', 'sig-proxy', 'tty', 'use-api-socket',
];
const DOCKER_RUN_VALUED = (
  'add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop cgroup-parent cgroupns cidfile cpu-count ' +
  'cpu-percent cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems detach-keys device ' +
  'device-cgroup-rule device-read-bps device-read-iops device-write-bps device-write-iops dns dns-option dns-search domainname ' +
  'entrypoint env env-file expose gpus group-add health-cmd health-interval health-retries health-start-interval health-start-period ' +
  'health-timeout hostname io-maxbandwidth io-maxiops ip ip6 ipc isolation kernel-memory label label-file link link-local-ip ' +
  'log-driver log-opt mac-address memory memory-reservation memory-swap memory-swappiness mount name network network-alias ' +
  'oom-score-adj pid pids-limit platform publish pull restart runtime security-opt shm-size stop-signal stop-timeout ' +
  'storage-opt sysctl tmpfs ulimit user userns uts volume volume-driver volumes-from workdir'
).split(' ');

/** A command in a container: paths are the container's, so its cwd is unknown here. */
const DOCKER_EXEC: WrapperSpec = {
  flags: 'dit', valued: 'euw', longFlags: ['detach', 'interactive', 'privileged', 'tty'],
  longValued: ['detach-keys', 'env', 'env-file', 'user', 'workdir'], longNoCommand: ['help'], leadingOperands: 1, movesCwd: true, reportSelf: true,
};
const DOCKER_RUN: WrapperSpec = {
  flags: 'dPqit', valued: 'acehlmpuvw', longFlags: DOCKER_RUN_FLAGS, longValued: DOCKER_RUN_VALUED, longNoCommand: ['help'],
  opaque: ['entrypoint'], leadingOperands: 1, movesCwd: true, reportSelf: true,
};

export const RUNNERS: Readonly<Record<string, WrapperSpec>> = {
  // procps watch: the words are joined and run by `sh -c`, or exec'd as they are with -x.
  watch: {
    flags: 'bcegptwx', optionalValued: 'd', valued: 'qn', noCommand: 'hv', abbreviations: true,
    longFlags: ['beep', 'color', 'errexit', 'chgexit', 'precise', 'no-title', 'no-wrap', 'exec'],
    longOptional: ['differences'], longValued: ['equexit', 'interval'], longNoCommand: HELP,
    operands: 'joined-code', argvWith: ['x', 'exec'],
  },
  busybox: { longNoCommand: ['list', 'list-full', 'help', 'install'] },
  flock: {
    flags: 'sexnoFu', valued: 'wE', noCommand: 'hV', leadingOperands: 1, leadingOperandsWritten: true, trailingCode: true, abbreviations: true,
    longFlags: ['shared', 'exclusive', 'unlock', 'nonblock', 'close', 'no-fork', 'verbose'],
    longValued: ['timeout', 'conflict-exit-code'], longNoCommand: HELP,
  },
  chroot: {
    longFlags: ['skip-chdir'], longValued: ['userspec', 'groups'], longNoCommand: HELP, leadingOperands: 1,
    movesCwd: true, reportSelf: true, shellWithoutCommand: true, abbreviations: true,
  },
  unshare: {
    flags: 'fcr', optionalValued: 'muinpUCT', valued: 'RwSG', noCommand: 'hV', abbreviations: true, reportSelf: true,
    longFlags: ['fork', 'map-root-user', 'map-current-user', 'map-auto', 'keep-caps'],
    longOptional: ['mount', 'uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'kill-child', 'mount-proc'],
    longValued: ['map-user', 'map-group', 'map-users', 'map-groups', 'propagation', 'setgroups', 'root', 'wd', 'setuid', 'setgid', 'monotonic', 'boottime'],
    longNoCommand: HELP, chdir: ['w', 'wd'], forgetsCwd: ['R', 'root'], shellWithoutCommand: true,
  },
  nsenter: {
    flags: 'aFZ', optionalValued: 'muinpCUTrw', valued: 'tSGW', noCommand: 'hV', abbreviations: true, reportSelf: true,
    longFlags: ['all', 'no-fork', 'follow-context', 'preserve-credentials'],
    longOptional: ['mount', 'uts', 'ipc', 'net', 'pid', 'cgroup', 'user', 'time', 'root', 'wd'],
    longValued: ['target', 'setuid', 'setgid', 'wdns'], longNoCommand: HELP, movesCwd: true, shellWithoutCommand: true,
  },
  taskset: {
    flags: 'ac', noCommand: 'phV', longFlags: ['all-tasks', 'cpu-list'], longNoCommand: ['pid', ...HELP], leadingOperands: 1, abbreviations: true,
  },
  chrt: {
    flags: 'bdfiorRav', valued: 'TPD', noCommand: 'mphV', leadingOperands: 1, abbreviations: true,
    longFlags: ['batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'all-tasks', 'verbose'],
    longValued: ['sched-runtime', 'sched-period', 'sched-deadline'], longNoCommand: ['max', 'pid', ...HELP],
  },
  prlimit: {
    optionalValued: 'cdefilmnqrstuvxy', valued: 'o', noCommand: 'phV', abbreviations: true,
    longOptional: ['core', 'data', 'nice', 'fsize', 'sigpending', 'memlock', 'rss', 'nofile', 'msgqueue', 'rtprio', 'stack', 'cpu', 'nproc', 'as', 'locks', 'rttime'],
    longValued: ['output'], longFlags: ['noheadings', 'raw', 'verbose'], longNoCommand: ['pid', ...HELP],
  },
  setpriv: {
    noCommand: 'dhV', reportSelf: true, abbreviations: true,
    longFlags: ['nnp', 'no-new-privs', 'clear-groups', 'keep-groups', 'init-groups', 'reset-env'],
    longValued: ['ambient-caps', 'inh-caps', 'bounding-set', 'ruid', 'euid', 'rgid', 'egid', 'reuid', 'regid', 'groups', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile'],
    longNoCommand: ['dump', ...HELP],
  },
  strace: {
    flags: 'AcCdDfFiknqrtTvwxyzZ', valued: 'abeEIoOpPsSuUX', noCommand: 'hV', writes: ['o', 'output'], environment: ['E', 'env'],
    longFlags: ['debug', 'failed-only', 'follow-forks', 'instruction-pointer', 'no-abbrev', 'output-append-mode', 'output-separately', 'seccomp-bpf', 'stack-traces', 'successful-only', 'summary', 'summary-only', 'summary-wall-clock', 'syscall-number'],
    longValued: ['abbrev', 'attach', 'columns', 'const-print-style', 'decode-pids', 'detach-on', 'env', 'fault', 'inject', 'interruptible', 'kvm', 'output', 'raw', 'read', 'signal', 'status', 'string-limit', 'summary-columns', 'summary-sort-by', 'summary-syscall-overhead', 'trace-path', 'trace', 'user', 'write'],
    longOptional: ['absolute-timestamps', 'daemonize', 'decode-fds', 'quiet', 'relative-timestamps', 'strings-in-hex', 'syscall-times', 'tips', 'verbose'],
    longNoCommand: HELP, abbreviations: true,
  },
  ltrace: {
    flags: 'bcCfiLrStT', valued: 'aAeFlnopsuwxD', noCommand: 'hV', writes: ['o', 'output'],
    longFlags: ['demangle'], longValued: ['align', 'indent', 'library', 'output'], longNoCommand: HELP,
  },
  script: {
    flags: 'aefq', valued: 'IOBTmEoc', optionalValued: 't', noCommand: 'hV', abbreviations: true,
    longFlags: ['append', 'return', 'flush', 'force', 'quiet'],
    longValued: ['command', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format', 'echo', 'output-limit'],
    longOptional: ['timing'], longNoCommand: HELP,
    code: ['c', 'command'], writes: ['I', 'O', 'B', 'T', 'log-in', 'log-out', 'log-io', 'log-timing'],
    operands: 'files-written', defaultWrite: 'typescript', shellWithoutCommand: true,
  },
  sshpass: { flags: 'ev', valued: 'fdpP', noCommand: 'hV' },
  fakeroot: {
    flags: 'u', valued: 'sib', noCommand: 'hv', writes: ['s'], opaque: ['l', 'lib', 'faked'],
    longFlags: ['unknown-is-real'], longValued: ['lib', 'faked', 'fd-base'], longNoCommand: HELP, shellWithoutCommand: true,
  },
  'systemd-run': {
    flags: 'dGPqrStu', valued: 'pEHM', noCommand: 'h', reportSelf: true, movesCwd: true, abbreviations: true,
    longFlags: ['collect', 'no-ask-password', 'no-block', 'on-clock-change', 'on-timezone-change', 'pipe', 'pty', 'quiet', 'remain-after-exit', 'same-dir', 'scope', 'send-sighup', 'shell', 'slice-inherit', 'user', 'wait'],
    longValued: ['description', 'gid', 'host', 'machine', 'nice', 'on-active', 'on-boot', 'on-calendar', 'on-startup', 'on-unit-active', 'on-unit-inactive', 'path-property', 'property', 'service-type', 'setenv', 'slice', 'socket-property', 'timer-property', 'uid', 'unit', 'working-directory'],
    longNoCommand: HELP, environment: ['E', 'setenv'], opaque: ['H', 'host', 'M', 'machine'], shellWithoutCommand: ['S', 'shell'],
  },
  valgrind: { anyOption: true, writes: ['log-file', 'xml-file'] },
  'xvfb-run': {
    flags: 'al', valued: 'defnpsw', noCommand: 'h', writes: ['e', 'error-file'],
    longFlags: ['auto-servernum', 'listen-tcp'], longValued: ['auto-display', 'error-file', 'auth-file', 'server-num', 'xauth-protocol', 'server-args', 'wait'], longNoCommand: ['help'],
  },
  'dbus-run-session': { longOptional: ['config-file'], longValued: ['dbus-daemon'], opaque: ['dbus-daemon'], longNoCommand: HELP },
  unbuffer: { flags: 'p' },
  catchsegv: {},
  ssh: {
    flags: '46AaCfgKkMnqsTtvXxYy', valued: 'BbcDEeFIiJLlmopRSWw', noCommand: 'GVNOQ', leadingOperands: 1, optionsAfterOperands: true,
    operands: 'joined-code', elsewhere: 'ssh runs the command on another host', reportSelf: true, movesCwd: true,
    opaqueValues: { o: /^\s*(proxycommand|localcommand|permitlocalcommand|knownhostscommand|remotecommand|proxyjump|include|match)/i },
  },
  docker: {
    flags: 'D', valued: 'Hcl', noCommand: 'v', longFlags: ['debug', 'tls', 'tlsverify'],
    longValued: ['config', 'context', 'host', 'log-level', 'tlscacert', 'tlscert', 'tlskey'], longNoCommand: ['help', 'version'],
    subcommands: { exec: DOCKER_EXEC, run: DOCKER_RUN, container: { subcommands: { exec: DOCKER_EXEC, run: DOCKER_RUN } } },
  },
  podman: { subcommands: { exec: DOCKER_EXEC, run: DOCKER_RUN } },
};
