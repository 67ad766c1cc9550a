/**
 * Programs that run another program: each entry of the runner tables and parsers, with its option
 * grammar (values, where the command starts, `--`, shell code), and what stays unresolvable.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from './helpers.js';

async function summary(line: string) {
  const analysis = await analyze(line);
  return {
    argvs: analysis.commands.map((command) => command.argv.join(' ')),
    wrappers: analysis.commands.map((command) => command.wrappers.join(',')),
    writes: analysis.redirections.filter((r) => r.access === 'write').map((r) => r.path),
    unresolvable: analysis.unresolvable.join(' | '),
  };
}

describe('the inner command is found and analysed', () => {
  it.each([
    ['busybox rm -rf /', 'rm -rf /', 'busybox'],
    ["busybox sh -c 'rm -rf /'", 'rm -rf /', 'busybox,sh'],
    ['flock /tmp/lk rm -rf /', 'rm -rf /', 'flock'],
    ['flock -w 5 -x /tmp/lk rm -rf /', 'rm -rf /', 'flock'],
    ["flock /tmp/lk -c 'rm -rf /'", 'rm -rf /', 'flock'],
    ["flock --sh /tmp/lk --command 'rm -rf /'", 'rm -rf /', 'flock'],
    ['taskset 0x1 rm -rf /', 'rm -rf /', 'taskset'],
    ['taskset -c 0 rm -rf /', 'rm -rf /', 'taskset'],
    ['chrt -o 0 rm -rf /', 'rm -rf /', 'chrt'],
    ['chrt --oth 0 rm -rf /', 'rm -rf /', 'chrt'],
    ['prlimit --nofile=100 -c rm -rf /', 'rm -rf /', 'prlimit'],
    ['strace -f -e trace=file rm -rf /', 'rm -rf /', 'strace'],
    ['ltrace -o out rm -rf /', 'rm -rf /', 'ltrace'],
    ["script -qc 'rm -rf /' /tmp/log", 'rm -rf /', 'script'],
    ['sshpass -p pw rm -rf /', 'rm -rf /', 'sshpass'],
    ['fakeroot -- rm -rf /', 'rm -rf /', 'fakeroot'],
    ['xvfb-run -a rm -rf /', 'rm -rf /', 'xvfb-run'],
    ['dbus-run-session -- rm -rf /', 'rm -rf /', 'dbus-run-session'],
    ['unbuffer -p rm -rf /', 'rm -rf /', 'unbuffer'],
    ['catchsegv rm -rf /', 'rm -rf /', 'catchsegv'],
    ['valgrind --tool=memcheck -q rm -rf /', 'rm -rf /', 'valgrind'],
    ['noglob rm -rf /', 'rm -rf /', 'noglob'],
    ['nocorrect rm -rf /', 'rm -rf /', 'nocorrect'],
    ['repeat 3 rm -rf /', 'rm -rf /', 'repeat'],
    ["trap -- 'rm -rf /' EXIT", 'rm -rf /', 'trap'],
    ['env --ch /tmp rm -rf x', 'rm -rf x', 'env'],
    ['timeout --sig KILL 5 rm -rf /', 'rm -rf /', 'timeout'],
    ['timeout --s=KILL 5 rm -rf /', 'rm -rf /', 'timeout'],
    ['xargs --nu rm -rf', 'rm -rf', 'xargs'],
  ])('%s', async (line, inner, wrappers) => {
    const result = await summary(line);
    expect(result.argvs.at(-1)).toBe(inner);
    expect(result.wrappers.at(-1)).toBe(wrappers);
  });

  it.each([
    ['chroot /mnt rm -rf /', 'chroot /mnt rm -rf /'],
    ['unshare -r rm -rf /', 'unshare -r rm -rf /'],
    ['nsenter -t 1 -m rm -rf /', 'nsenter -t 1 -m rm -rf /'],
    ['setpriv --reuid=0 rm -rf /', 'setpriv --reuid=0 rm -rf /'],
    ['runuser -u root -- rm -rf /', 'runuser -u root -- rm -rf /'],
    ['systemd-run --user rm -rf /', 'systemd-run --user rm -rf /'],
    ['docker exec -it c rm -rf /', 'docker exec -it c rm -rf /'],
    ['docker run --rm -v /:/h ubuntu rm -rf /', 'docker run --rm -v /:/h ubuntu rm -rf /'],
    ['kubectl exec -it pod -- rm -rf /', 'kubectl exec -it pod -- rm -rf /'],
    ['gdb --args rm -rf /', 'gdb --args rm -rf /'],
    ['sudo --us root rm -rf /', 'sudo --us root rm -rf /'],
  ])('%s is reported as itself and runs rm', async (line, self) => {
    const result = await summary(line);
    expect(result.argvs).toEqual([self, 'rm -rf /']);
  });

  it.each([
    ["su -mc 'rm -rf /'", 'su'],
    ["su -c 'rm -rf /' root", 'su'],
    ["su --command='rm -rf /'", 'su'],
    ["su --comm 'rm -rf /'", 'su'],
    ["su - root -c 'rm -rf /'", 'su'],
    ["runuser root -c 'rm -rf /'", 'runuser'],
    ["sg wheel -c 'rm -rf /'", 'sg'],
    ["sg wheel 'rm -rf /'", 'sg'],
    ["nix-shell -p hello --run 'rm -rf /'", 'nix-shell'],
    ["ssh host 'rm -rf /'", 'ssh'],
    ['ssh -p 22 host -v rm -rf /', 'ssh'],
    ["npx -c 'rm -rf /'", 'npx'],
    ["npm exec --call='rm -rf /'", 'npm'],
    ["pnpm exec -c 'rm -rf /'", 'pnpm'],
    ["yarn exec 'rm -rf /'", 'yarn'],
    ["env -S 'rm -rf /'", 'env'],
    ["env --split-string='rm -rf /'", 'env'],
    ["watch -n 5 -d 'rm -rf /'", 'watch'],
    ['watch --inter=5 rm -rf /', 'watch'],
    ['watch -x rm -rf /', 'watch'],
  ])('%s runs its shell code', async (line, runner) => {
    const result = await summary(line);
    expect(result.argvs.at(-1)).toBe('rm -rf /');
    expect(result.wrappers.at(-1)).toBe(runner);
  });

  it('watch -dn: -d takes the attached `n` as its value (as real watch does), so `5 …` is the code', async () => {
    expect((await summary("watch -dn 5 'rm -rf /'")).argvs).toEqual(['5 rm -rf /']);
  });

  it('files the runners write are write redirections', async () => {
    expect((await summary('strace -o /tmp/out rm x')).writes).toEqual(['/tmp/out']);
    expect((await summary("script -c 'ls' /tmp/log")).writes).toEqual(['/tmp/log']);
    expect((await summary("script -qc 'ls'")).writes).toEqual(['/w/typescript']);
    expect((await summary('valgrind --log-file=/tmp/v.log ls')).writes).toEqual(['/tmp/v.log']);
  });

  it('options that run elsewhere or as someone else make the cwd unknown', async () => {
    for (const line of ['chroot /mnt rm x', 'sudo -i rm x', "su - root -c 'rm x'", 'docker exec c rm x', 'ssh h rm x']) {
      expect((await summary(line)).unresolvable, line).toMatch(/working directory not known/);
    }
    expect((await analyze('unshare -w /tmp rm x')).commands.at(-1)!.cwd).toBe('/tmp');
  });

  it('strace -E and systemd-run --setenv set the environment', async () => {
    expect((await summary('strace -E LD_PRELOAD=x ls')).unresolvable).toMatch(/LD_PRELOAD/);
    expect((await summary('systemd-run --setenv=LD_PRELOAD=x ls')).unresolvable).toMatch(/LD_PRELOAD/);
  });

  it('coproc with a compound command runs its body', async () => {
    const result = await summary('coproc NAME { rm -rf /; }');
    expect(result.argvs).toContain('rm -rf /');
    expect(result.unresolvable).toMatch(/coproc/);
  });

  it('rg --pre runs its preprocessor; zsh =rm runs rm', async () => {
    expect((await summary('rg --pre ./evil x .')).argvs).toEqual(['rg --pre ./evil x .', './evil']);
    expect((await summary('rg --pre=/tmp/evil x .')).argvs).toEqual(['rg --pre=/tmp/evil x .', '/tmp/evil']);
    const zsh = await summary('=rm -rf /');
    expect(zsh.argvs).toEqual(['rm -rf /']);
    expect(zsh.unresolvable).toMatch(/zsh/);
  });
});

describe('unresolvable: no certain reading', () => {
  it.each([
    ['flock -c x /tmp/lk', /unknown option/],
    ['chroot /mnt', /shell reading standard input/],
    ['script', /shell reading standard input/],
    ['sudo -s', /shell reading standard input/],
    ['su root', /shell reading standard input/],
    ["su root -- -c 'rm -rf /'", /extra arguments/],
    ['su -s /tmp/evil -c ls', /through \/tmp\/evil/],
    ['parallel rm ::: /', /template/],
    ['hash -p /bin/rm ls', /hash -p/],
    ['fakeroot --faked /tmp/x rm', /--faked/],
    ['dbus-run-session --dbus-daemon=/tmp/x rm', /--dbus-daemon/],
    ['docker run --entrypoint sh ubuntu', /--entrypoint/],
    ['ssh -o ProxyCommand=evil host ls', /ProxyCommand/],
    ['ssh host rm -rf /', /another host/],
    ['kubectl exec pod rm -rf /', /without `--`/],
    ['gdb -ex run --args rm -rf /', /debugger commands/],
    ['ionice --cla 3 rm', /ambiguous/],
    ['watch --bogus rm', /unknown/],
    ['env --i rm', /ambiguous|unknown/],
    ['timeout --bogus 5 rm', /unknown/],
    ['strace --bogus rm', /unknown/],
    ['setpriv --bogus rm', /unknown/],
    ["env -S 'rm -rf /'", /splits its string/],
    ["sudo -s echo '$X'", /expands its \$/],
    ["sudo -i ls '$(id)'", /expands its \$/],
  ])('%s', async (line, reason) => {
    expect((await summary(line)).unresolvable).toMatch(reason);
  });

  it('a runner with no command is itself', async () => {
    expect((await summary('taskset -p 1')).argvs).toEqual(['taskset -p 1']);
    expect((await summary('chrt -p 1')).argvs).toEqual(['chrt -p 1']);
    expect((await summary('docker ps')).argvs).toEqual(['docker ps']);
    expect((await summary('kubectl get pods')).argvs).toEqual(['kubectl get pods']);
    expect((await summary('gdb -batch prog')).argvs).toEqual(['gdb -batch prog']);
    expect((await summary('docker ps')).unresolvable).toBe('');
  });
});

describe('git subcommands that run commands', () => {
  it.each([
    ["git rebase -x 'rm -rf /' HEAD~3", 'rm -rf /'],
    ["git rebase --exec='rm -rf /' main", 'rm -rf /'],
    ["git rebase -ix 'rm -rf /' main", 'rm -rf /'],
    ["git rebase --exe='rm -rf /' main", 'rm -rf /'],
    ["git difftool --extc 'rm -rf /'", 'rm -rf /'],
    ["git -C repo rebase --exec 'rm -rf /'", 'rm -rf /'],
    ['git bisect run rm -rf /', 'rm -rf /'],
    ["git submodule foreach --recursive 'rm -rf /'", 'rm -rf /'],
    ["git filter-branch --tree-filter 'rm -rf /' HEAD", 'rm -rf /'],
    ["git difftool -x 'rm -rf /'", 'rm -rf /'],
  ])('%s', async (line, inner) => {
    const result = await summary(line);
    expect(result.argvs.at(-1)).toBe(inner);
    expect(result.wrappers.at(-1)).toBe('git');
    expect(result.argvs[0]!.startsWith('git')).toBe(true);
  });

  it('other git commands are only git', async () => {
    expect((await summary('git rebase main')).argvs).toEqual(['git rebase main']);
    expect((await summary('git log -x')).argvs).toEqual(['git log -x']);
    expect((await summary('git rebase -x')).unresolvable).toMatch(/without its command/);
  });
});
