/**
 * Works around a tree-sitter-bash 0.25 misparse: in a pipeline of three or more commands followed
 * by `&&` / `||`, the list is nested inside the pipeline's last part:
 * `a | b | c && cd / ; rm -rf .` parses as `a | (b | c && cd /) ; rm -rf .`, so the `cd` looks as if
 * it ran in a pipeline subshell and `rm` as if it ran in the original directory. In bash a pipeline
 * binds tighter than `&&` / `||` (`(a | b | c) && cd /`), and a bare `&&`/`||` list can never be a
 * pipeline element. A chain of `list` / `pipeline` nodes holding a `list` directly inside a
 * `pipeline` is flattened to its statements and operators and rebuilt with bash's precedence:
 * `|` / `|&` first, then `&&` / `||` from the left.
 */
import { isPlainTree } from './plain-line.js';
import type { SyntaxNode } from './syntax.js';

const PIPE_OPERATORS = new Set(['|', '|&']);
const LIST_OPERATORS = new Set(['&&', '||']);

/** `root` with every misparsed chain rebuilt; `root` itself when there is none (the usual case). */
export function liftListsOutOfPipelines(root: SyntaxNode): SyntaxNode {
  if (!root.source.includes('|')) return root; // no pipeline at all
  if (isPlainTree(root)) return root; // plain-line.ts builds bash's tree
  return hasListInPipeline(root) ? rebuild(root) : root;
}

function hasListInPipeline(root: SyntaxNode): boolean {
  const pending: SyntaxNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type === 'pipeline' && node.children.some((child) => child.type === 'list')) return true;
    for (const child of node.children) pending.push(child);
  }
  return false;
}

/** Post-order copy (iterative: trees can be deep); chains are re-associated on the way up. */
function rebuild(root: SyntaxNode): SyntaxNode {
  interface Frame { readonly node: SyntaxNode; readonly children: SyntaxNode[]; index: number }
  const stack: Frame[] = [{ node: root, children: [], index: 0 }];
  for (;;) {
    const frame = stack[stack.length - 1]!;
    if (frame.index < frame.node.children.length) {
      const child = frame.node.children[frame.index++]!;
      stack.push({ node: child, children: [], index: 0 });
      continue;
    }
    stack.pop();
    const changed = frame.children.some((child, i) => child !== frame.node.children[i]);
    let result = changed ? { ...frame.node, children: frame.children } : frame.node;
    if (isChain(result) && !isChain(stack[stack.length - 1]?.node)) result = reassociate(result) ?? result;
    if (stack.length === 0) return result;
    stack[stack.length - 1]!.children.push(result);
  }
}

function chainHasListInPipeline(chain: SyntaxNode): boolean {
  const pending: SyntaxNode[] = [chain];
  while (pending.length > 0) {
    const node = pending.pop()!;
    for (const child of node.children) {
      if (node.type === 'pipeline' && child.type === 'list') return true;
      if (isChain(child)) pending.push(child);
    }
  }
  return false;
}

function isChain(node: SyntaxNode | undefined): boolean {
  return node?.type === 'list' || node?.type === 'pipeline';
}

/** Rebuilds one maximal chain; undefined (left as parsed) when it is not a clean statement/operator sequence. */
function reassociate(chain: SyntaxNode): SyntaxNode | undefined {
  if (!chainHasListInPipeline(chain)) return undefined;
  const parts: SyntaxNode[] = []; // statement, operator, statement, …
  const pending: SyntaxNode[] = [chain];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (isChain(node)) {
      for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!);
    } else if (node.type !== 'comment') {
      parts.push(node);
    }
  }
  for (let i = 0; i < parts.length; i++) {
    const isOperator = !parts[i]!.named && (PIPE_OPERATORS.has(parts[i]!.type) || LIST_OPERATORS.has(parts[i]!.type));
    if (isOperator !== (i % 2 === 1) || parts[i]!.missing || parts[i]!.type === 'ERROR') return undefined;
  }
  if (parts.length % 2 === 0) return undefined;
  // Pipelines first.
  const pipelines: SyntaxNode[] = [];
  const listOperators: SyntaxNode[] = [];
  let run: SyntaxNode[] = [parts[0]!];
  for (let i = 1; i < parts.length; i += 2) {
    const operator = parts[i]!;
    const next = parts[i + 1]!;
    if (PIPE_OPERATORS.has(operator.type)) {
      run.push(operator, next);
    } else {
      pipelines.push(pipelineOf(run));
      listOperators.push(operator);
      run = [next];
    }
  }
  pipelines.push(pipelineOf(run));
  // Then lists, left-nested.
  let list = pipelines[0]!;
  for (let i = 0; i < listOperators.length; i++) list = composite('list', chain.field, [list, listOperators[i]!, pipelines[i + 1]!]);
  return list.field === chain.field ? list : { ...list, field: chain.field };
}

function pipelineOf(run: SyntaxNode[]): SyntaxNode {
  if (run.length > 1) return composite('pipeline', null, run);
  return run[0]!.field === null ? run[0]! : { ...run[0]!, field: null };
}

function composite(type: string, field: string | null, children: SyntaxNode[]): SyntaxNode {
  const first = children[0]!;
  const last = children[children.length - 1]!;
  return {
    type, field, named: true, missing: false, start: first.start, end: last.end,
    text: first.source.slice(first.start, last.end), children, source: first.source,
  };
}
