/**
 * tree-sitter-bash nests an `&&`/`||` list inside a pipeline of three or more commands
 * (`a | b | c && d` as `a | (b | c && d)`); pipeline-lists.ts rebuilds bash's precedence, so a cd
 * after such a pipeline moves the commands and redirects that follow.
 */
import { describe, expect, it } from 'vitest';
import { loadBashParser } from '../../src/shell/parser.js';
import { liftListsOutOfPipelines } from '../../src/shell/pipeline-lists.js';
import type { SyntaxNode } from '../../src/shell/syntax.js';
import { analyze } from './helpers.js';

async function cwds(line: string) {
  const analysis = await analyze(line);
  return analysis.commands.map((command) => [command.argv.join(' '), command.cwd]);
}

/** Compact tree: commands as their text, other named nodes as type(children…), operators as written. */
function outline(node: SyntaxNode): string {
  if (node.type === 'command') return node.text;
  if (!node.named) return node.type;
  return `${node.type}(${node.children.filter((child) => child.type !== 'comment').map(outline).join(' ')})`;
}

async function repaired(line: string): Promise<string> {
  const parser = await loadBashParser();
  return outline(liftListsOutOfPipelines(parser.parse(line)!));
}

describe('lists misparsed inside pipelines', () => {
  it('rebuilds pipelines first, then lists from the left', async () => {
    expect(await repaired('a | b | c && d')).toBe('program(list(pipeline(a | b | c) && d))');
    expect(await repaired('a | b | c && d || e')).toBe('program(list(list(pipeline(a | b | c) && d) || e))');
    expect(await repaired('a | b | c | d && e')).toBe('program(list(pipeline(a | b | c | d) && e))');
    expect(await repaired('a | b | c && d | e | f && g')).toBe('program(list(list(pipeline(a | b | c) && pipeline(d | e | f)) && g))');
    expect(await repaired('a | b | c |& d && e')).toBe('program(list(pipeline(a | b | c |& d) && e))');
    expect(await repaired('x; a | b | c && d; e')).toBe('program(x ; list(pipeline(a | b | c) && d) ; e)');
    expect(await repaired('(a | b | c && d)')).toBe('program(subshell(( list(pipeline(a | b | c) && d) )))');
  });

  it('leaves correct trees alone', async () => {
    const parser = await loadBashParser();
    for (const line of ['a | b && c', 'a && b | c | d', 'a | b | c; d', 'a | b | c 2>x && d']) {
      const tree = parser.parse(line)!;
      expect(liftListsOutOfPipelines(tree)).toBe(tree);
    }
  });

  it('a cd after a pipeline of three moves what follows', async () => {
    expect(await cwds('true | true | true && cd / ; rm -rf .')).toEqual([['true', '/w'], ['true', '/w'], ['true', '/w'], ['rm -rf .', '/']]);
    expect(await cwds('a | b | c && cd /x && d; e')).toEqual([['a', '/w'], ['b', '/w'], ['c', '/w'], ['d', '/x'], ['e', '/x']]);
    expect((await analyze('ls | cat | head && cd /etc; echo x > passwd')).redirections).toEqual([{ path: '/etc/passwd', access: 'write', operator: '>' }]);
  });

  it('a cd inside the pipeline still does not leak', async () => {
    expect(await cwds('a | b | cd /x && d; e')).toEqual([['a', '/w'], ['b', '/w'], ['d', '/w'], ['e', '/w']]);
  });
});
