import { describe, expect, it } from 'vitest';
import { analyze, sharedAnalyzer } from './helpers.js';

async function reasonsOf(line: string): Promise<string> {
  return (await analyze(line)).unresolvable.join(' | ');
}

describe('unresolvable lines', () => {
  it.each([
    ['eval "rm -rf /"', /eval/],
    ['eval $CMD', /eval/],
    ['source ./env.sh', /source/],
    ['. ./env.sh && ls', /runs the commands of a file/],
    ['$CMD x', /command name known only at run time: \$CMD/],
    ['${X} y', /command name known only at run time/],
    ['$(echo rm) -rf /', /command name known only at run time/],
    ['`echo rm` -rf /', /command name known only at run time/],
    ['"$X"', /command name known only at run time/],
    ['/usr/bin/cur? x', /glob/],
    ['/usr/bin/c[u]rl x', /glob/],
    ['echo "unterminated', /syntax error/],
    ["echo 'unterminated", /syntax error/],
    ['ls &&', /syntax error/],
    ['if true; then', /syntax error/],
    ['echo $(', /syntax error/],
    ['\u0441url x', /non-ASCII/],
    ['ls\\ -la', /space/],
    ['ls\u200b -la', /invisible/],
    ['ls -la \u202e', /invisible/],
    ['ls \u2066x\u2069', /invisible/],
    ['\ufeffls', /invisible/],
    ['ls\u00ad', /invisible/],
    ['ls \u00a0-la', /looks like a space/],
    ['git push origin main\u2002--force', /looks like a space/],
    ['git status\rrm -rf /', /control character/],
    ['echo \u001b[2Khi', /control character/],
    ['f() { rm -rf /; }; f', /function f/],
    ['function g { ls; }; g', /function g/],
    ['alias ls="rm -rf ~"; ls', /alias/],
    ['echo !!', /history/],
    ['!ls', /history/],
    ['PATH=.:$PATH git status', /PATH/],
    ['LD_PRELOAD=./x.so ls', /LD_PRELOAD/],
    ['export GIT_EXTERNAL_DIFF=./x; git diff', /GIT_EXTERNAL_DIFF/],
    ['env NODE_OPTIONS=--require=./x.js npm test', /NODE_OPTIONS/],
    ['git -c core.pager=./evil log', /git -c/],
    ['git -c alias.st=!rm st', /git -c/],
    ['bash -c "$SCRIPT"', /run time/],
    ['cat x | sh', /standard input/],
    ['sudo $CMD', /run time/],
    ['echo > "$F"', /redirect target/],
    // Arithmetic and subscripts evaluate values recursively: x='a[$(cmd)]' runs cmd.
    ["x='a[$(rm -rf ~)]'; echo $((x))", /arithmetic/],
    ['echo $(( $(cat f) ))', /arithmetic/],
    ['echo ${a[x]}', /arithmetic/],
    ['echo ${a[$i]}', /arithmetic/],
    ['a[$(id)]=1', /arithmetic/],
    ["[[ 1 -eq 'a[$(rm x)]' ]]", /arithmetic/],
    ['[[ $n -gt 3 ]] && ls', /arithmetic/],
    ['[[ -v a[x] ]]', /arithmetic/],
    ['x=$(cat f); echo ${!x}', /arithmetic/],
    ['(( n++ ))', /arithmetic/],
    ['for ((i=0; i<n; i++)); do ls; done', /arithmetic/],
    ["read 'a[$(rm x)]' <<< 1", /read with a variable name/],
    ["printf -v 'a[$(rm x)]' 1", /printf with a variable name/],
    ["unset 'a[$(rm x)]'", /unset with a variable name/],
    ["declare 'a[$(rm x)]=1'", /declare with a variable name/],
    ["test -v 'a[$(rm x)]'", /test with a variable name/],
    ["mapfile -C 'rm x' -c 1 arr < f", /mapfile with options/],
    ['declare -i n; n=$x', /declare with options/],
    ['let x=y+1', /let with options/],
  ])('%j', async (line, reason) => {
    expect(await reasonsOf(line)).toMatch(reason);
  });

  it('a line longer than 10,000 characters', async () => {
    const analysis = await analyze(`echo ${'a'.repeat(10_001)}`);
    expect(analysis.unresolvable.join()).toMatch(/longer than/);
    expect(analysis.commands).toEqual([]);
  });

  it('commands of an unresolvable line are still reported, so deny rules see them', async () => {
    const analysis = await analyze('rm -rf / && echo "unterminated');
    expect(analysis.commands.map((command) => command.argv.join(' '))).toContain('rm -rf /');
    expect(analysis.unresolvable.length).toBeGreaterThan(0);
  });

  it('variables as arguments are fine: the command is known', async () => {
    const analysis = await analyze('rm -rf $DIR');
    // The command is known; the file it deletes is not (file-arguments.test.ts).
    expect(analysis.unresolvable).toEqual(['file deleted by rm known only at run time: $DIR']);
    expect(analysis.commands[0]).toMatchObject({ argv: ['rm', '-rf', '$DIR'], dynamicArguments: true });
  });

  it('ordinary non-ASCII text in arguments is fine', async () => {
    expect(await reasonsOf('echo "héllo wörld ✓"')).toBe('');
    expect(await reasonsOf('git commit -m "fix: naïve café"')).toBe('');
  });

  it('literal arithmetic and plain names are fine', async () => {
    expect(await reasonsOf('echo $((1 + 2)) ${arr[@]} ${arr[0]} ${!arr[@]} ${!pre@}; (( 3 > 2 )); [[ 3 -eq 3 ]]')).toBe('');
    expect(await reasonsOf('read -r -p "[y/N] " answer; printf -v out "%s" x; unset a b[1]; export A=1; [[ -v HOME ]]')).toBe('');
  });

  it('harmless assignments are fine', async () => {
    // (Not with a project runner: a line that runs `npm test` may set only inert names, runner-environment.test.ts.)
    expect(await reasonsOf('LC_ALL=C git status; X=2; while IFS= read -r l; do echo "$l"; done < f')).toBe('');
    expect(await reasonsOf('CI=1 npm test')).toBe('');
    expect(await reasonsOf('NO_COLOR=1 TERM=dumb ls; env LANG=C.UTF-8 grep -n x f; X=1 echo $X')).toBe('');
  });

  it('a variable set for a program is unresolvable unless it is known to be inert', async () => {
    // A program, or the C library under it, reads more than hazards.ts names: GCONV_PATH loads
    // iconv modules (code), LOCPATH and TZDIR read files, and any name may be read by the program.
    expect(await reasonsOf('FOO=1 git status')).toMatch(/sets FOO for git, not a known inert variable/);
    expect(await reasonsOf('GCONV_PATH=. cat README.md')).toMatch(/sets GCONV_PATH for cat/);
    expect(await reasonsOf('env TZDIR=. ls -l')).toMatch(/sets TZDIR for the command/);
    expect(await reasonsOf('timeout 5 env LOCPATH=. grep x f')).toMatch(/sets LOCPATH/);
    expect(await reasonsOf('TZ=../../x.log ls')).toMatch(/sets TZ for ls/);
  });

  it('deep nesting does not throw', async () => {
    const deep = `${'$('.repeat(500)}ls${')'.repeat(500)}`;
    const analysis = await analyze(deep);
    expect(analysis.unresolvable.join()).toMatch(/nested too deeply|syntax error/);
  });

  it('bad inputs do not throw', async () => {
    expect((await analyze('ls', { cwd: 'relative', home: '/h' })).unresolvable.join()).toMatch(/absolute/);
    const analyzer = await sharedAnalyzer();
    const loose = analyzer.analyze as (line: unknown, context: unknown) => { unresolvable: readonly string[] };
    expect(loose(undefined, { cwd: '/w', home: '/h' }).unresolvable).toEqual([]);
    expect(loose('ls', undefined).unresolvable.length).toBeGreaterThan(0);
    expect(loose('ls', { cwd: 3, home: null }).unresolvable.length).toBeGreaterThan(0);
  });
});
