import { describe, expect, it } from 'vitest';
import { analyze, argvsOf } from './helpers.js';

describe('quoting and escapes resolve to the word the shell sees', () => {
  it.each([
    ["'curl' x", ['curl', 'x']],
    ['"curl" x', ['curl', 'x']],
    ['\\curl x', ['curl', 'x']],
    ['c\\url x', ['curl', 'x']],
    ["c'u'\"r\"l x", ['curl', 'x']],
    ["$'\\x63url' x", ['curl', 'x']],
    ["$'\\143url' x", ['curl', 'x']],
    ["$'\\u0063url' x", ['curl', 'x']],
    ['"npm" test', ['npm', 'test']],
    ['echo "a b" \'c d\' e\\ f', ['echo', 'a b', 'c d', 'e f']],
    ['echo "x\\"y" "a\\$b" "c\\d"', ['echo', 'x"y', 'a$b', 'c\\d']],
    ["echo $'a\\tb\\n'", ['echo', 'a\tb\n']],
    ['echo $"hello"', ['echo', 'hello']],
    ['echo --opt="a b"', ['echo', '--opt=a b']],
    ['cu\\\nrl x', ['curl', 'x']],
  ])('%j', async (line, argv) => {
    const analysis = await analyze(line);
    expect(analysis.commands[0]!.argv).toEqual(argv);
    expect(analysis.unresolvable).toEqual([]);
  });

  it('program is the basename of argv[0]', async () => {
    const [command] = (await analyze('/usr/bin/curl https://x')).commands;
    expect(command!.program).toBe('curl');
    expect(command!.argv[0]).toBe('/usr/bin/curl');
    expect((await analyze('./node_modules/.bin/eslint .')).commands[0]!.program).toBe('eslint');
  });

  it('expands ~ and ~/x to home, not ~user', async () => {
    expect(await argvsOf('ls ~ ~/x ~root/y "~/z" a~b')).toEqual(['ls /home/dev /home/dev/x ~root/y ~/z a~b']);
  });

  it('expands $HOME and ${HOME} unless the line may change HOME', async () => {
    expect(await argvsOf('rm -rf $HOME "${HOME}/x"')).toEqual(['rm -rf /home/dev /home/dev/x']);
    // Not the context home; the same-line constant is what bash uses (the line is unresolvable anyway).
    expect(await argvsOf('HOME=/tmp; rm -rf $HOME')).toEqual(['rm -rf /tmp']);
    expect(await argvsOf('read HOME; rm -rf $HOME')).toEqual(['read HOME', 'rm -rf $HOME']);
  });

  it('keeps other expansions as written and marks the command dynamic', async () => {
    const [command] = (await analyze('rm -rf $DIR "${X}/y" $(pwd)/z')).commands.slice(-1);
    expect(command!.argv).toEqual(['rm', '-rf', '$DIR', '${X}/y', '$(pwd)/z']);
    expect(command!.dynamicArguments).toBe(true);
    expect((await analyze('rm -rf build')).commands[0]!.dynamicArguments).toBe(false);
  });

  it('keeps globs literal', async () => {
    expect(await argvsOf('rm -f *.o "src/*"')).toEqual(['rm -f *.o src/*']);
  });

  it('performs brace expansion', async () => {
    expect(await argvsOf('rm -{r,f} /')).toEqual(['rm -r -f /']);
    expect(await argvsOf('echo a{b,c}d {1..3} x{a..c} "{q,r}"')).toEqual(['echo abd acd 1 2 3 xa xb xc {q,r}']);
    expect(await argvsOf('echo {a,b{1,2}} {} {x}')).toEqual(['echo a b1 b2 {} {x}']);
  });

  it('a brace expansion that would make too many words is unresolvable', async () => {
    expect((await analyze('echo {1..100000}')).unresolvable.join()).toMatch(/brace/);
  });
});
