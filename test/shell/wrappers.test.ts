import { describe, expect, it } from 'vitest';
import { analyze, argvsOf } from './helpers.js';

async function innermost(line: string) {
  const analysis = await analyze(line);
  return analysis.commands[analysis.commands.length - 1]!;
}

describe('wrappers are peeled and the inner command analysed', () => {
  it.each([
    ['timeout 10 npm test', ['timeout']],
    ['timeout -s KILL -k 5 10s npm test', ['timeout']],
    ['timeout --signal=TERM --preserve-status 1m npm test', ['timeout']],
    ['nice npm test', ['nice']],
    ['nice -n 10 npm test', ['nice']],
    ['nice -5 npm test', ['nice']],
    ['nohup npm test', ['nohup']],
    ['stdbuf -o0 -eL npm test', ['stdbuf']],
    ['stdbuf --output=0 npm test', ['stdbuf']],
    ['command npm test', ['command']],
    ['builtin npm test', ['builtin']],
    ['exec npm test', ['exec']],
    ['exec -a name npm test', ['exec']],
    ['time npm test', ['time']],
    ['time -p npm test', ['time']],
    ['ionice -c 3 npm test', ['ionice']],
    ['setsid -f npm test', ['setsid']],
    ['coproc npm test', ['coproc']],
    ['env npm test', ['env']],
    ['env -i npm test', ['env']],
    ['env -u HOME -i npm test', ['env']],
    ['nice -n 5 timeout 3 nohup npm test', ['nice', 'timeout', 'nohup']],
  ])('%s', async (line, wrappers) => {
    const command = await innermost(line);
    expect(command.argv).toEqual(['npm', 'test']);
    expect(command.wrappers).toEqual(wrappers);
  });

  it('transparent wrappers are not reported as commands of their own', async () => {
    expect(await argvsOf('timeout 5 nice -n 1 npm test')).toEqual(['npm test']);
  });

  it('program names that are Object.prototype keys are not wrappers', async () => {
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      const analysis = await analyze(`${name} rm -rf /`);
      expect(analysis.commands.map((command) => [command.argv.join(' '), command.wrappers])).toEqual([[`${name} rm -rf /`, []]]);
    }
    expect((await analyze('cp a toString')).redirections.filter((r) => r.access === 'write').map((r) => r.path)).toEqual(['/w/toString', '/w/toString/a']);
    expect((await analyze('toString -o x')).redirections).toEqual([]);
  });

  it('a wrapper without a command is reported as itself', async () => {
    expect(await argvsOf('nohup')).toEqual(['nohup']);
    expect(await argvsOf('env')).toEqual(['env']);
    expect(await argvsOf('command -v git')).toEqual(['command -v git']);
  });

  it('sudo is reported as itself and the inner command too', async () => {
    const analysis = await analyze('sudo -u root -E rm -rf /');
    expect(analysis.commands.map((command) => command.argv.join(' '))).toEqual(['sudo -u root -E rm -rf /', 'rm -rf /']);
    expect(analysis.commands[1]!.wrappers).toEqual(['sudo']);
    expect(await argvsOf('sudo --user=root -- rm x')).toEqual(['sudo --user=root -- rm x', 'rm x']);
    expect(await argvsOf('doas rm x')).toEqual(['doas rm x', 'rm x']);
  });

  it('sudo without a command is only sudo', async () => {
    expect(await argvsOf('sudo -l')).toEqual(['sudo -l']);
    expect(await argvsOf('sudo -i')).toEqual(['sudo -i']);
  });

  it('env and sudo assignments are recorded as assignments', async () => {
    const command = await innermost('env -i FOO=1 BAR=2 npm test');
    expect(command.assignments).toEqual(['FOO=1', 'BAR=2']);
    expect((await innermost('sudo DEBUG=1 npm test')).assignments).toEqual(['DEBUG=1']);
  });

  it('env -C and sudo -D change the inner command directory', async () => {
    expect((await innermost('env -C /tmp rm x')).cwd).toBe('/tmp');
    expect((await innermost('sudo -D sub rm x')).cwd).toBe('/w/sub');
  });

  it('an unknown wrapper option makes the line unresolvable', async () => {
    const analysis = await analyze('timeout --bogus 5 ls rm -rf /');
    expect(analysis.unresolvable.join()).toMatch(/unknown option/);
  });

  it('xargs runs its command with supplied arguments', async () => {
    const command = await innermost('find . -name "*.o" | xargs -0 -n 1 rm -f');
    expect(command).toMatchObject({ argv: ['rm', '-f'], wrappers: ['xargs'], dynamicArguments: true });
    expect((await innermost('xargs -I{} rm {}')).argv).toEqual(['rm', '{}']);
    expect((await innermost('xargs --max-args=1 --null rm')).argv).toEqual(['rm']);
  });

  it('find -exec / -execdir / -ok run commands', async () => {
    const analysis = await analyze('find . -name "*.tmp" -exec rm -f {} \\; -execdir chmod +x {} + -ok mv {} /tmp \\;');
    expect(analysis.commands.map((command) => command.argv.join(' '))).toEqual([
      'find . -name *.tmp -exec rm -f {} ; -execdir chmod +x {} + -ok mv {} /tmp ;',
      'rm -f {}',
      'chmod +x {}',
      'mv {} /tmp',
    ]);
    expect(analysis.commands[1]).toMatchObject({ wrappers: ['find'], dynamicArguments: true });
  });

  it('find -delete is reported as rm -r -f of the find roots', async () => {
    const analysis = await analyze('find /tmp/x src -name "*.pyc" -delete');
    expect(analysis.commands.map((command) => command.argv.join(' '))).toEqual([
      'find /tmp/x src -name *.pyc -delete',
      'rm -r -f -- /tmp/x src',
    ]);
    expect(analysis.commands[1]!.wrappers).toEqual(['find']);
    expect(await argvsOf('find -delete')).toContain('rm -r -f -- .');
  });

  it('find -fprint writes a file', async () => {
    const analysis = await analyze('find . -fprint /etc/list');
    expect(analysis.redirections).toEqual([{ path: '/etc/list', access: 'write', operator: 'find' }]);
  });

  it.each([
    'bash -c "rm -rf /tmp/x"',
    'sh -c "rm -rf /tmp/x"',
    'bash -lc "rm -rf /tmp/x"',
    'bash -l -c "rm -rf /tmp/x"',
    'zsh -c "rm -rf /tmp/x"',
    'dash -c "rm -rf /tmp/x"',
    'bash --login -c "rm -rf /tmp/x"',
    'bash -o pipefail -c "rm -rf /tmp/x"',
    'bash -c "rm -rf /tmp/x" name arg',
  ])('%s analyses the script', async (line) => {
    const analysis = await analyze(line);
    expect(analysis.commands.map((command) => command.argv.join(' '))).toEqual(['rm -rf /tmp/x']);
    expect(analysis.commands[0]!.wrappers).toEqual([line.split(' ')[0]]);
    expect(analysis.unresolvable).toEqual([]);
  });

  it('nested shells are analysed recursively with the same cwd', async () => {
    const command = await innermost(`bash -c "sh -c 'cd sub && rm x'"`);
    expect(command).toMatchObject({ argv: ['rm', 'x'], cwd: '/w/sub', wrappers: ['bash', 'sh'] });
  });

  it('a cd inside bash -c does not leak out', async () => {
    const analysis = await analyze('bash -c "cd /tmp" && rm x');
    expect(analysis.commands.at(-1)!.cwd).toBe('/w');
  });

  it('a shell running a script file is an ordinary command', async () => {
    expect(await argvsOf('bash ./build.sh --fast')).toEqual(['bash ./build.sh --fast']);
  });

  it('a shell reading commands from a pipe is unresolvable', async () => {
    const analysis = await analyze('curl -s https://x.sh | bash');
    expect(analysis.unresolvable.join()).toMatch(/standard input/);
  });

  it('a shell fed a literal here-doc or here-string analyses it', async () => {
    expect(await argvsOf("bash <<'EOF'\nrm -rf /\nEOF")).toEqual(['rm -rf /']);
    expect(await argvsOf('sh <<< "rm -rf /"')).toEqual(['rm -rf /']);
  });

  it('a shell fed an expanding here-doc is unresolvable', async () => {
    const analysis = await analyze('bash <<EOF\nrm -rf $DIR\nEOF');
    expect(analysis.unresolvable.join()).toMatch(/standard input/);
  });

  it('a dynamic script is unresolvable', async () => {
    expect((await analyze('bash -c "$SCRIPT"')).unresolvable.join()).toMatch(/run time/);
  });

  it('su -c, watch and trap scripts are analysed', async () => {
    expect(await argvsOf("su -c 'rm -rf /' root")).toEqual(["su -c rm -rf / root", 'rm -rf /']);
    expect(await argvsOf("watch -n 1 'git status'")).toEqual(['git status']);
    expect(await argvsOf("trap 'rm -rf /tmp/x' EXIT")).toEqual(['trap rm -rf /tmp/x EXIT', 'rm -rf /tmp/x']);
  });
});
