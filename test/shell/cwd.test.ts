import { describe, expect, it } from 'vitest';
import { analyze } from './helpers.js';

/** [argv, cwd] of each command. */
async function cwds(line: string) {
  const analysis = await analyze(line);
  return analysis.commands.map((command) => [command.argv.join(' '), command.cwd]);
}

async function reasons(line: string) {
  return (await analyze(line)).unresolvable;
}

describe('cd tracking', () => {
  it('cd changes the cwd of what follows in the same sequence', async () => {
    expect(await cwds('cd /x && a; b\nc')).toEqual([['a', '/x'], ['b', '/x'], ['c', '/x']]);
    expect(await cwds('cd /x; a')).toEqual([['a', '/x']]);
  });

  it('resolves relative, .., ~ and no-argument cd', async () => {
    expect(await cwds('cd sub && a')).toEqual([['a', '/w/sub']]);
    expect(await cwds('cd .. && a')).toEqual([['a', '/']]);
    expect(await cwds('cd ../x/./y/.. && a')).toEqual([['a', '/x']]);
    expect(await cwds('cd ~/p && a')).toEqual([['a', '/home/dev/p']]);
    expect(await cwds('cd && a')).toEqual([['a', '/home/dev']]);
    expect(await cwds('cd -P -- /x && a')).toEqual([['a', '/x']]);
  });

  it('cd is not reported as a command', async () => {
    expect((await analyze('cd /w && npm test')).commands.map((command) => command.program)).toEqual(['npm']);
  });

  it('builtin cd and command cd change the cwd too', async () => {
    expect(await cwds('builtin cd /x && a; command cd /y; b')).toEqual([['a', '/x'], ['b', '/y']]);
  });

  it('a cd in a subshell, pipeline part, substitution or background job does not leak', async () => {
    expect(await cwds('(cd /x; a); b')).toEqual([['a', '/x'], ['b', '/w']]);
    expect(await cwds('cd /x | a; b')).toEqual([['a', '/w'], ['b', '/w']]);
    expect(await cwds('echo $(cd /x; pwd); b')).toEqual([['pwd', '/x'], ['echo $(cd /x; pwd)', '/w'], ['b', '/w']]);
    expect(await cwds('cd /x & b')).toEqual([['b', '/w']]);
  });

  it('a cd in a group does leak', async () => {
    expect(await cwds('{ cd /x; }; b')).toEqual([['b', '/x']]);
  });

  it('cd - and a dynamic directory make the cwd unknown', async () => {
    expect(await reasons('cd - && ls')).toEqual(['working directory not known statically (dynamic or conditional cd)']);
    expect(await reasons('cd $DIR && ls')).toHaveLength(1);
    expect(await reasons('cd "$(git rev-parse --show-toplevel)" && ls')).toHaveLength(1);
  });

  it('an unknown cwd only matters when something runs after it', async () => {
    expect(await reasons('ls; cd $DIR')).toEqual([]);
  });

  it('cd x || exit keeps x for what follows', async () => {
    expect(await cwds('cd /x || exit 1; a')).toEqual([['exit 1', '/w'], ['a', '/x']]);
    expect(await reasons('cd /x || exit 1; a')).toEqual([]);
  });

  it('a cd on either side of || makes the cwd unknown afterwards', async () => {
    expect(await reasons('cd /x || cd /y; a')).toHaveLength(1);
    expect(await reasons('a || cd /y; b')).toHaveLength(1);
  });

  it('a cd in an if branch makes the cwd unknown after the if', async () => {
    expect(await cwds('if cd /x; then a; fi')).toEqual([['a', '/x']]);
    expect(await reasons('if true; then cd /x; fi; b')).toHaveLength(1);
  });

  it('a cd in a loop body is unresolvable', async () => {
    expect(await reasons('for d in a b; do cd /tmp/$d; ls; done')).toContain('cd inside a loop');
  });

  it('pushd and popd are followed', async () => {
    expect(await cwds('pushd /x && a && popd && b')).toEqual([['a', '/x'], ['b', '/w']]);
    expect(await reasons('popd; a')).toHaveLength(1);
    expect(await reasons('pushd; a')).toHaveLength(1);
  });

  it('redirects after a cd resolve in the new directory', async () => {
    expect((await analyze('cd /x; echo > f')).redirections[0]!.path).toBe('/x/f');
  });

  it('shell -c scripts start in the current cwd', async () => {
    expect(await cwds('cd /x && bash -c "a"')).toEqual([['a', '/x']]);
  });
});
