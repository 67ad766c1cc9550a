/**
 * The allow-list principle of the walker: every node type of the grammar is modelled or
 * unresolvable (checked against the grammar's own node-types.json), an unknown type is
 * unresolvable, and code the walk does not reach is unresolvable. Plus the exact argv of
 * same-line constants (word splitting) and the `${…}` reader.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnalysisCollector, newScope } from '../../src/shell/collector.js';
import { MODELLED_NODE_TYPES, UNRESOLVABLE_NODE_TYPES, isModelledNodeType } from '../../src/shell/node-types.js';
import { parseParameterExpansion } from '../../src/shell/parameter-expansion.js';
import type { BashParser } from '../../src/shell/parser.js';
import { StatementWalker } from '../../src/shell/statement-walker.js';
import { STATEMENT_TYPES, type SyntaxNode } from '../../src/shell/syntax.js';
import { checkTree, treeReasons } from '../../src/shell/tree-check.js';
import { analyze, argvsOf, CONTEXT } from './helpers.js';

interface GrammarType {
  readonly type: string;
  readonly named: boolean;
  readonly subtypes?: readonly { readonly type: string }[];
}

function grammarTypes(): GrammarType[] {
  const packageJson = createRequire(import.meta.url).resolve('tree-sitter-bash/package.json');
  return JSON.parse(readFileSync(join(dirname(packageJson), 'src', 'node-types.json'), 'utf8')) as GrammarType[];
}

/** A synthetic node; `text` defaults to the children's texts joined by spaces. */
function node(type: string, children: SyntaxNode[] = [], options: { field?: string; text?: string; named?: boolean } = {}): SyntaxNode {
  const text = options.text ?? children.map((child) => child.text).join(' ');
  return { type, field: options.field ?? null, named: options.named ?? true, missing: false, start: 0, end: text.length, text, children, source: text };
}

function token(type: string): SyntaxNode {
  return node(type, [], { named: false, text: type });
}

function analyzeTree(root: SyntaxNode) {
  const parser: BashParser = { parse: () => root };
  const collector = new AnalysisCollector(CONTEXT, root.text);
  new StatementWalker(collector, parser).analyzeCode(root.text, newScope(CONTEXT.cwd), { wrappers: [], stdin: { kind: 'inherited' } });
  return collector.result();
}

describe('node types: unknown means unresolvable', () => {
  it('every named type of the grammar is modelled or explicitly unresolvable, and only those', () => {
    const named = grammarTypes().filter((entry) => entry.named && !entry.type.startsWith('_')).map((entry) => entry.type);
    const modelled = Object.keys(MODELLED_NODE_TYPES);
    for (const type of named) {
      expect([type, modelled.includes(type) !== UNRESOLVABLE_NODE_TYPES.has(type)]).toEqual([type, true]);
    }
    expect(modelled.filter((type) => !named.includes(type))).toEqual([]);
    expect([...UNRESOLVABLE_NODE_TYPES].filter((type) => !named.includes(type))).toEqual([]);
  });

  it("the walker's statement types are exactly the grammar's statements", () => {
    const statement = grammarTypes().find((entry) => entry.type === '_statement');
    expect(new Set(statement?.subtypes?.map((entry) => entry.type))).toEqual(new Set(STATEMENT_TYPES));
  });

  it('a type the table does not know is unresolvable, wherever it is', () => {
    expect(isModelledNodeType('frobnicate')).toBe(false);
    const tree = node('program', [node('command', [node('command_name', [node('word', [], { text: 'ls' })], { field: 'name' }), node('frobnicate', [], { field: 'argument', text: 'x' })])]);
    expect(treeReasons(checkTree(tree))).toEqual(['shell construct the analysis does not model: frobnicate']);
    expect(analyzeTree(tree).unresolvable).toContain('shell construct the analysis does not model: frobnicate');
  });

  it('a substitution in a place the walk does not look is unresolvable, and still reported', () => {
    // A `for` whose variable (never scanned: it is a name) holds a command substitution.
    const substitution = node('command_substitution', [token('$('), node('command', [node('command_name', [node('word', [], { text: 'id' })], { field: 'name' })]), token(')')]);
    const loop = node('for_statement', [
      token('for'),
      node('variable_name', [substitution], { field: 'variable' }),
      token('in'),
      node('word', [], { field: 'value', text: 'a' }),
      token(';'),
      node('do_group', [token('do'), node('command', [node('command_name', [node('word', [], { text: 'ls' })], { field: 'name' })]), token(';'), token('done')], { field: 'body' }),
    ]);
    const analysis = analyzeTree(node('program', [loop]));
    expect(analysis.unresolvable.join()).toMatch(/place the analysis does not walk/);
    expect(analysis.commands.map((command) => command.argv.join(' '))).toEqual(['ls', 'id']);
  });

  it('a word whose text still holds code the parser did not see is unresolvable', () => {
    const tree = node('program', [node('command', [node('command_name', [node('word', [], { text: 'echo' })], { field: 'name' }), node('word', [], { field: 'argument', text: 'a$(id)' })])]);
    expect(treeReasons(checkTree(tree))).toEqual(['shell code inside a word the parser did not recognise']);
    const escaped = node('program', [node('command', [node('command_name', [node('word', [], { text: 'echo' })], { field: 'name' }), node('word', [], { field: 'argument', text: 'a\\$(id)' })])]);
    expect(treeReasons(checkTree(escaped))).toEqual([]);
  });

  it('real lines reach every substitution (no false unresolvable)', async () => {
    const line = 'for f in $(ls); do echo "${f:-$(pwd)}" > "$(date)"; done; case $(id) in $(whoami)) cat <<EOF;; esac\n$(uname)\nEOF\n[[ $(a) == $(b) ]]; declare x=$(c); (( 1 )); f() { g $(h); }';
    const analysis = await analyze(line);
    expect(analysis.unresolvable.filter((reason) => /does not walk|does not model/.test(reason))).toEqual([]);
  });
});

describe('${…} read from its text', () => {
  it.each([
    ['${x}', undefined, []],
    ['${x:-a $(b) `c`}', undefined, ['a $(b) `c`']],
    ['${x/$(p)/$(r)}', undefined, ['$(p)/$(r)']],
    ['${#a[@]}', undefined, []],
    ['${!a[@]}', undefined, []],
    ['${!pre@}', undefined, []],
    ['${x: -1:2}', undefined, []],
    ['${@:2}', undefined, []],
    ['${x@Q}', undefined, []],
    ['${x:-${y:-}}', undefined, ['${y:-}']],
    ['${x:-"}$(a)"}', undefined, ['"}$(a)"']],
  ])('%s', (text, hazard, code) => {
    const expansion = parseParameterExpansion(text);
    expect(expansion.hazard).toBe(hazard);
    expect(expansion.code).toEqual(code);
  });

  it.each([['${x:i}'], ['${x:1:$n}'], ['${a[i]}'], ['${a[$(id)]}'], ['${x@P}'], ['${x@z}'], ['${!x}'], ['${!x[1]}'], ['${PATH:=/x}'], ['${HOME=/x}'], ['${x:-a'], ['${x?}}']])(
    '%s is a hazard',
    (text) => expect(parseParameterExpansion(text).hazard).toBeDefined(),
  );

  it('${x:=v} reports the name it assigns', () => {
    expect(parseParameterExpansion('${x:=v}').assigns).toBe('x');
    expect(parseParameterExpansion('${x:-v}').assigns).toBeUndefined();
  });
});

describe('same-line constants: exact argv', () => {
  it('splits an unquoted value on default IFS, keeps a quoted one whole', async () => {
    expect((await analyze('o="-rf  /"; rm $o')).commands[0]?.argv).toEqual(['rm', '-rf', '/']);
    expect((await analyze('o="-rf  /"; rm "$o"')).commands[0]?.argv).toEqual(['rm', '-rf  /']);
    expect((await analyze('o="-rf /"; rm x$o')).commands[0]?.dynamicArguments).toBe(true);
  });

  it('does not split or glob unquoted values when the line mentions IFS or the value has glob characters', async () => {
    expect(await argvsOf('IFS=:; o=a:b; ls $o "$o"')).toEqual(['ls $o a:b']);
    expect(await argvsOf('g="*.ts"; ls $g "$g"')).toEqual(['ls $g *.ts']);
  });

  it('a value reaches code run by this shell, not by another process', async () => {
    expect(await argvsOf('b=x; echo $(git push $b) `git push $b`')).toEqual(['git push x', 'git push x', 'echo $(git push $b) `git push $b`']);
    expect(await argvsOf("b=x; sh -c 'git push $b'")).toEqual(['git push $b']);
  });

  it('a constant is substituted in redirect targets and assignments', async () => {
    const analysis = await analyze('d=sub; f=$d/out.txt; echo hi > $f');
    expect(analysis.redirections).toEqual([{ path: '/w/sub/out.txt', access: 'write', operator: '>' }]);
    expect(analysis.unresolvable).toEqual([]);
  });
});
