/**
 * A plain-data copy of a tree-sitter-bash syntax tree. The wasm tree is copied once and freed at
 * once, so the analysis never holds wasm memory, never leaks a tree on an exception, and walks
 * ordinary JS objects (much cheaper than crossing into wasm for every property).
 */
export interface SyntaxNode {
  readonly type: string;
  /** The field name this node has in its parent (`name`, `argument`, `body`, `redirect`, …). */
  readonly field: string | null;
  readonly named: boolean;
  /** Inserted by error recovery; has no text. */
  readonly missing: boolean;
  /** UTF-16 offsets into the parsed source. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly children: readonly SyntaxNode[];
  /** The whole parsed source (shared by every node of a tree), for the text between nodes. */
  readonly source: string;
}

export function childByField(node: SyntaxNode, field: string): SyntaxNode | undefined {
  return node.children.find((child) => child.field === field);
}

export function childrenByField(node: SyntaxNode, field: string): SyntaxNode[] {
  return node.children.filter((child) => child.field === field);
}

/**
 * tree-sitter-bash splits some single words into several nodes: `cu\<newline>rl` (bash removes a
 * backslash-newline inside a word) and `$"x"`. Nodes with nothing (or only backslash-newlines)
 * between them are one word for bash; they are joined into a synthetic concatenation.
 */
export function joinSplitWords(nodes: readonly SyntaxNode[]): readonly SyntaxNode[] {
  let split = false;
  for (let i = 1; i < nodes.length && !split; i++) split = isSameWord(nodes[i - 1]!, nodes[i]!);
  if (!split) return nodes; // the usual case: every node is a word of its own
  const joined: SyntaxNode[] = [];
  let group: SyntaxNode[] = [];
  const flush = () => {
    if (group.length === 1) joined.push(group[0]!);
    else if (group.length > 1) joined.push(concatenationOf(group));
    group = [];
  };
  for (const node of nodes) {
    const previous = group[group.length - 1];
    if (!previous || !isSameWord(previous, node)) flush();
    group.push(node);
  }
  flush();
  return joined;
}

function isSameWord(left: SyntaxNode, right: SyntaxNode): boolean {
  if (left.source !== right.source || right.start < left.end) return false;
  // Only backslash-newline pairs between them (none at all included).
  const source = left.source;
  for (let i = left.end; i < right.start; i += 2) {
    if (source.charCodeAt(i) !== 0x5c || i + 1 >= right.start || source.charCodeAt(i + 1) !== 0x0a) return false;
  }
  return true;
}

function concatenationOf(group: readonly SyntaxNode[]): SyntaxNode {
  const first = group[0]!;
  const last = group[group.length - 1]!;
  return {
    type: 'concatenation',
    field: first.field,
    named: true,
    missing: false,
    start: first.start,
    end: last.end,
    text: first.source.slice(first.start, last.end),
    children: group,
    source: first.source,
  };
}

/** Node types that are statements (things the shell executes) in tree-sitter-bash. */
export const STATEMENT_TYPES: ReadonlySet<string> = new Set([
  'command',
  'redirected_statement',
  'list',
  'pipeline',
  'negated_command',
  'subshell',
  'compound_statement',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'variable_assignment',
  'variable_assignments',
  'declaration_command',
  'unset_command',
  'test_command',
]);
