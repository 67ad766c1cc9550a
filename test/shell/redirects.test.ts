import { describe, expect, it } from 'vitest';
import { analyze, argvsOf } from './helpers.js';

async function redirectionsOf(line: string) {
  return (await analyze(line)).redirections;
}

describe('redirections', () => {
  it.each([
    ['echo x > out', '>', 'write'],
    ['echo x >> out', '>>', 'write'],
    ['echo x >| out', '>|', 'write'],
    ['echo x &> out', '&>', 'write'],
    ['echo x &>> out', '&>>', 'write'],
    ['echo x >& out', '>&', 'write'],
    ['echo x 2> out', '>', 'write'],
    ['echo x 1>> out', '>>', 'write'],
    ['cat < out', '<', 'read'],
    ['exec 3<> out', '<>', 'write'],
  ])('%s', async (line, operator, access) => {
    const analysis = await analyze(line);
    expect(analysis.redirections).toEqual([{ path: '/w/out', access, operator }]);
    expect(analysis.unresolvable).toEqual([]);
  });

  it('fd duplications and closes are not paths', async () => {
    expect(await redirectionsOf('cmd 2>&1 >&2 <&0 3>&- 1>&-')).toEqual([]);
  });

  it('harmless devices are dropped', async () => {
    expect(await redirectionsOf('cmd > /dev/null 2>/dev/stderr </dev/tty >>/dev/stdout')).toEqual([]);
  });

  it('resolves targets against the cwd and normalises them', async () => {
    // `kernelPath` keeps `..` for the facts layer, which resolves it after symlinks.
    expect(await redirectionsOf('echo > ../x/./y//z')).toEqual([{ path: '/x/y/z', access: 'write', operator: '>', kernelPath: '/w/../x/y/z' }]);
    expect(await redirectionsOf('echo > ~/.ssh/authorized_keys')).toEqual([
      { path: '/home/dev/.ssh/authorized_keys', access: 'write', operator: '>' },
    ]);
  });

  it('applies a redirect after a list to its last command, after an earlier cd', async () => {
    const analysis = await analyze('cd /x && echo hi > f');
    expect(analysis.redirections).toEqual([{ path: '/x/f', access: 'write', operator: '>' }]);
    expect(analysis.commands.map((command) => [command.argv.join(' '), command.cwd])).toEqual([['echo hi', '/x']]);
  });

  it('applies a redirect after a pipeline to its last command', async () => {
    expect(await redirectionsOf('cd /x; a | cd /y | b > f')).toEqual([{ path: '/x/f', access: 'write', operator: '>' }]);
  });

  it('a redirect of a subshell resolves against the outer cwd', async () => {
    expect(await redirectionsOf('(cd /etc; cat passwd) > out')).toEqual([{ path: '/w/out', access: 'write', operator: '>' }, { path: '/etc/passwd', access: 'read', operator: 'cat' }]);
  });

  it('a redirect before cd in the same command uses the cwd before it', async () => {
    expect(await redirectionsOf('cd /x > log; echo > f')).toEqual([
      { path: '/w/log', access: 'write', operator: '>' },
      { path: '/x/f', access: 'write', operator: '>' },
    ]);
  });

  it('words after a redirect target are arguments', async () => {
    expect(await argvsOf('rm > /dev/null -rf /')).toEqual(['rm -rf /']);
    expect(await argvsOf('>out echo a')).toEqual(['echo a']);
  });

  it('here-docs and here-strings are data, not paths', async () => {
    const analysis = await analyze('cat <<EOF > out.txt\nrm -rf /\nEOF');
    expect(analysis.commands.map((command) => command.argv.join(' '))).toEqual(['cat']);
    expect(analysis.redirections).toEqual([{ path: '/w/out.txt', access: 'write', operator: '>' }]);
    expect(await argvsOf('cat <<-EOF\n\trm x\n\tEOF')).toEqual(['cat']);
    expect(await argvsOf('grep x <<< "rm -rf /"')).toEqual(['grep x']);
  });

  it('a redirect alone still writes its file', async () => {
    expect(await redirectionsOf('> out')).toEqual([{ path: '/w/out', access: 'write', operator: '>' }]);
  });

  it('a dynamic target is unresolvable', async () => {
    const analysis = await analyze('echo x > "$OUT"');
    expect(analysis.redirections).toEqual([]);
    expect(analysis.unresolvable.join()).toMatch(/redirect target/);
    expect((await analyze('echo > ~root/x')).unresolvable.join()).toMatch(/redirect target/);
  });

  it('redirects of loops and groups are recorded', async () => {
    expect(await redirectionsOf('while read l; do echo $l; done < in > out')).toEqual([
      { path: '/w/in', access: 'read', operator: '<' },
      { path: '/w/out', access: 'write', operator: '>' },
    ]);
    expect(await redirectionsOf('{ a; b; } 2>> log')).toEqual([{ path: '/w/log', access: 'write', operator: '>>' }]);
  });

  it('process substitution targets are commands, not paths', async () => {
    const analysis = await analyze('echo x > >(tee /tmp/y)');
    expect(analysis.redirections).toEqual([{ path: '/tmp/y', access: 'write', operator: 'tee' }]);
    expect(analysis.commands.map((command) => command.argv.join(' '))).toContain('tee /tmp/y');
  });

  it('files written through arguments of common commands are reported as writes', async () => {
    const write = (path: string, operator: string) => ({ path, access: 'write', operator });
    // Files read or deleted through arguments are reported too (file-arguments.test.ts); here: the writes.
    const writesOf = async (line: string) => (await redirectionsOf(line)).filter((r) => r.access === 'write');
    expect(await writesOf('git diff --output=/etc/x')).toEqual([write('/etc/x', 'git')]);
    expect(await writesOf('git log --output ../x')).toEqual([{ ...write('/x', 'git'), kernelPath: '/w/../x' }]);
    expect(await writesOf('sort -o out.txt in.txt')).toEqual([write('/w/out.txt', 'sort')]);
    expect(await writesOf('ls | tee -a a.txt /tmp/b')).toEqual([write('/w/a.txt', 'tee'), write('/tmp/b', 'tee')]);
    expect(await writesOf('curl -sSo /tmp/x https://y')).toEqual([write('/tmp/x', 'curl')]);
    expect(await writesOf('wget -O - https://y')).toEqual([]);
    // The destination may be a directory: the copies land at DEST/basename(SOURCE).
    expect(await writesOf('cp -r a b ~/dest')).toEqual([write('/home/dev/dest', 'cp'), write('/home/dev/dest/a', 'cp'), write('/home/dev/dest/b', 'cp')]);
    expect(await writesOf('mv -t /tmp a b')).toEqual([write('/tmp', 'mv'), write('/tmp/a', 'mv'), write('/tmp/b', 'mv')]);
    expect(await writesOf('dd if=x of=/dev/sda')).toEqual([write('/dev/sda', 'dd')]);
    expect((await analyze('tee "$OUT"')).unresolvable.join()).toMatch(/run time/);
  });

  it('time -o records the file written', async () => {
    expect(await redirectionsOf('time -o t.txt make')).toEqual([{ path: '/w/t.txt', access: 'write', operator: 'time option' }]);
  });
});
