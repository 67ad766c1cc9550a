import { describe, expect, it } from 'vitest';
import { analyze, argvsOf } from './helpers.js';

describe('splitting a line into simple commands', () => {
  it.each([
    ['a && b', ['a', 'b']],
    ['a || b', ['a', 'b']],
    ['a; b', ['a', 'b']],
    ['a | b', ['a', 'b']],
    ['a |& b', ['a', 'b']],
    ['a & b', ['a', 'b']],
    ['a\nb\nc', ['a', 'b', 'c']],
    ['a \\\n  --flag && b', ['a --flag', 'b']],
    ['a && b || c; d | e & f', ['a', 'b', 'c', 'd', 'e', 'f']],
  ])('%j', async (line, expected) => {
    expect(await argvsOf(line)).toEqual(expected);
  });

  it('keeps a long && chain flat and complete', async () => {
    const line = Array.from({ length: 300 }, (_, i) => `echo ${i}`).join(' && ');
    const analysis = await analyze(line);
    expect(analysis.commands).toHaveLength(300);
    expect(analysis.unresolvable).toEqual([]);
  });

  it('ignores comments, including leading comment lines', async () => {
    expect(await argvsOf('# clean up\n# really\nrm -rf build # done')).toEqual(['rm -rf build']);
  });

  it('finds commands in subshells and groups', async () => {
    expect(await argvsOf('(a; b) && { c; d; }')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('finds commands in if/elif/else conditions and bodies', async () => {
    expect(await argvsOf('if a; then b; elif c; then d; else e; fi')).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('finds commands in for/while/until/case', async () => {
    expect(await argvsOf('for f in x y; do rm $f; done')).toEqual(['rm $f']);
    expect(await argvsOf('while read l; do echo $l; done')).toEqual(['read l', 'echo $l']);
    expect(await argvsOf('until false; do sleep 1; done')).toEqual(['false', 'sleep 1']);
    expect(await argvsOf('case $x in a) rm y;; *) z;; esac')).toEqual(['rm y', 'z']);
    expect(await argvsOf('for ((i=0; i<3; i++)); do b; done')).toEqual(['b']);
  });

  it('reports [[ ]], [ ] and test as commands and looks inside them', async () => {
    expect(await argvsOf('[[ -f $(foo) ]] && [ -d x ] && test -e y')).toEqual(['foo', '[[ -f $(foo) ]]', '[ -d x ]', 'test -e y']);
  });

  it('finds command substitutions in arguments, strings, assignments and redirect targets', async () => {
    expect(await argvsOf('echo $(a) "x $(b) y" `c`')).toEqual(['a', 'b', 'c', 'echo $(a) x $(b) y `c`']);
    expect(await argvsOf('X=$(a) Y=`b` cmd')).toEqual(['a', 'b', 'cmd']);
    expect(await argvsOf('x=$(rm -rf /)')).toEqual(['rm -rf /']);
    expect(await argvsOf('echo hi > "$(mktemp)"')).toContain('mktemp');
    expect(await argvsOf('echo ${x:-$(rm y)} $((1 + $(id -u)))')).toEqual(['rm y', 'id -u', 'echo ${x:-$(rm y)} $((1 + $(id -u)))']);
  });

  it('finds nested and escaped backquote substitutions', async () => {
    expect(await argvsOf('echo `echo \\`rm x\\``')).toContain('rm x');
    expect(await argvsOf('echo $(echo $(rm y))')).toContain('rm y');
  });

  it('finds process substitutions', async () => {
    expect(await argvsOf('diff <(sort a) >(tee b)')).toEqual(['sort a', 'tee b', 'diff <(sort a) >(tee b)']);
  });

  it('finds commands in here-doc bodies that expand', async () => {
    expect(await argvsOf('cat <<EOF\n$(rm x)\nEOF')).toEqual(['rm x', 'cat']);
    expect(await argvsOf("cat <<'EOF'\n$(rm x)\nEOF")).toEqual(['cat']);
  });

  it('finds commands after a here-doc start on the same line', async () => {
    expect(await argvsOf('cat <<EOF && rm y\nbody\nEOF')).toEqual(['cat', 'rm y']);
    expect(await argvsOf('cat <<EOF | grep x\nbody\nEOF')).toEqual(['cat', 'grep x']);
  });

  it('analyses function bodies', async () => {
    expect(await argvsOf('f() { rm -rf /; }')).toEqual(['rm -rf /']);
  });

  it('reports declaration builtins as commands', async () => {
    expect(await argvsOf('export A=1; local b; unset c')).toEqual(['export A=1', 'local b', 'unset c']);
  });

  it('reports nothing for empty lines and comments', async () => {
    const analysis = await analyze('  \n# nothing\n');
    expect(analysis.commands).toEqual([]);
    expect(analysis.unresolvable).toEqual([]);
  });

  it('records text, program and cwd of each command', async () => {
    const [command] = (await analyze('/usr/bin/git status')).commands;
    expect(command).toMatchObject({ program: 'git', argv: ['/usr/bin/git', 'status'], cwd: '/w', text: '/usr/bin/git status' });
  });
});

describe('tree-sitter-bash misparse of a long pipeline followed by a list on the next line', () => {
  it.each([
    ['a | b | c\nd && e', ['a', 'b', 'c', 'd', 'e']],
    ['a | b | c x\nd || e', ['a', 'b', 'c x', 'd', 'e']],
    ['a | b | c # note\n\n# more\nd && e', ['a', 'b', 'c', 'd', 'e']],
    ['git log | grep x | head\nrm -rf / && echo ok', ['git log', 'grep x', 'head', 'rm -rf /', 'echo ok']],
  ])('%j', async (line, expected) => {
    expect(await argvsOf(line)).toEqual(expected);
  });
});
