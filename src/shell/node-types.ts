/**
 * The allow-list of tree-sitter-bash node types. The walker only trusts what it models: every
 * named node type it may meet is listed here with how it is modelled; a type not listed (a new
 * grammar version, a construct we never looked at) makes the line unresolvable. A test compares
 * this table with the grammar's own node-types.json, so a grammar update cannot add a type silently.
 */

/** How a modelled node type is handled (for the README and the test; the code lives elsewhere). */
export type NodeModel =
  | 'statement' // walked by the statement walker (statement-walker.ts)
  | 'structure' // part of a statement the walker reads (clauses, names, redirects, here-docs)
  | 'word' // a word or word part: quote removal and expansion in words.ts, code found by scanSubstitutions
  | 'code' // runs commands: walked as a script in a forked scope
  | 'parameter' // `${…}`: parsed again by parameter-expansion.ts (operators, subscripts, code in words)
  | 'arithmetic' // evaluated as arithmetic: only literal numbers and operators (arithmetic-hazards.ts)
  | 'ignored'; // no effect on what runs (comments)

export const MODELLED_NODE_TYPES: Readonly<Record<string, NodeModel>> = Object.freeze({
  program: 'structure',
  command: 'statement',
  redirected_statement: 'statement',
  list: 'statement',
  pipeline: 'statement',
  negated_command: 'statement',
  subshell: 'statement',
  compound_statement: 'statement',
  if_statement: 'statement',
  while_statement: 'statement',
  for_statement: 'statement',
  c_style_for_statement: 'statement',
  case_statement: 'statement',
  function_definition: 'statement',
  variable_assignment: 'statement',
  variable_assignments: 'statement',
  declaration_command: 'statement',
  unset_command: 'statement',
  test_command: 'statement',
  do_group: 'structure',
  elif_clause: 'structure',
  else_clause: 'structure',
  case_item: 'structure',
  command_name: 'structure',
  file_redirect: 'structure',
  heredoc_redirect: 'structure',
  herestring_redirect: 'structure',
  heredoc_body: 'structure',
  heredoc_start: 'structure',
  heredoc_end: 'structure',
  heredoc_content: 'structure',
  file_descriptor: 'structure',
  word: 'word',
  string: 'word',
  string_content: 'word',
  raw_string: 'word',
  ansi_c_string: 'word',
  translated_string: 'word',
  concatenation: 'word',
  number: 'word',
  simple_expansion: 'word',
  special_variable_name: 'word',
  variable_name: 'word',
  brace_expression: 'word',
  array: 'word',
  extglob_pattern: 'word',
  regex: 'word',
  test_operator: 'word',
  command_substitution: 'code',
  process_substitution: 'code',
  expansion: 'parameter',
  arithmetic_expansion: 'arithmetic',
  subscript: 'arithmetic',
  binary_expression: 'arithmetic',
  unary_expression: 'arithmetic',
  ternary_expression: 'arithmetic',
  parenthesized_expression: 'arithmetic',
  postfix_expression: 'arithmetic',
  comment: 'ignored',
});

/**
 * Named types of the grammar the walker deliberately does not model: meeting one makes the line
 * unresolvable. (Empty for tree-sitter-bash 0.25; the grammar test requires every named type to be
 * in exactly one of the two tables.)
 */
export const UNRESOLVABLE_NODE_TYPES: ReadonlySet<string> = new Set<string>();

/** The modelled types, and what the parser produces besides the grammar's named types (error recovery). */
const ACCEPTED_TYPES: ReadonlySet<string> = new Set([...Object.keys(MODELLED_NODE_TYPES), 'ERROR']);

export function isModelledNodeType(type: string): boolean {
  return ACCEPTED_TYPES.has(type);
}
