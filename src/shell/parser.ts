/**
 * Loads tree-sitter-bash once and parses synchronously. This is the only file of the module that
 * touches Node APIs or wasm; everything else works on the plain `SyntaxNode` copy it returns.
 */
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Language, Parser, type Tree, type TreeCursor } from 'web-tree-sitter';
import type { SyntaxNode } from './syntax.js';

export interface BashParser {
  /** Parses `source`; undefined if tree-sitter gives up (it never throws). */
  parse(source: string): SyntaxNode | undefined;
}

let loading: Promise<BashParser> | undefined;

/** V8 flags that keep wasm on its baseline compiler (see createBashParser). */
const WASM_BASELINE_ONLY = ['--no-wasm-tier-up', '--no-wasm-dynamic-tiering'] as const;

/** Initialises the wasm runtime and the bash grammar on first call; later calls share the result. */
export function loadBashParser(): Promise<BashParser> {
  loading ??= createBashParser(copyTree).catch((error: unknown) => {
    loading = undefined; // a failed load may be retried
    throw error;
  });
  return loading;
}

/**
 * A parser whose copy asks the cursor for every property of every node (no per-type table, no
 * shortcut for `missing`): the reference the property test holds the fast copy to.
 */
export function loadReferenceBashParser(): Promise<BashParser> {
  return createBashParser(copyTreeByProperties);
}

type TreeCopier = (tree: Tree, source: string) => SyntaxNode;

async function createBashParser(copy: TreeCopier): Promise<BashParser> {
  // Keep wasm on its baseline compiler (Liftoff). Otherwise V8 recompiles the grammar's hot
  // functions with TurboFan after the first parses, in background threads that on a laptop or a
  // 2-CPU runner compete with the agent and the relay and hold up the exit of a short command, for
  // no faster parse once warm (bench/RESULTS.md, "The grammar stays on the baseline wasm compiler").
  // `--no-wasm-tier-up` alone does not stop the dynamic tier-up. Process-wide, but this grammar is
  // the broker's only wasm.
  for (const flag of WASM_BASELINE_ONLY) setFlagsFromString(flag);
  await Parser.init();
  const wasmPath = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
  const language = await Language.load(wasmPath);
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse(source) {
      let tree: Tree | null = null;
      try {
        tree = parser.parse(source);
        if (!tree) return undefined;
        return copy(tree, source);
      } catch {
        parser.reset();
        return undefined;
      } finally {
        tree?.delete();
      }
    },
  };
}

/**
 * Copies the tree with a cursor (one wasm call per step) into plain objects. Each cursor property
 * is a call into wasm: a node's type name and whether it is named depend only on its type id
 * (looked up once per type), and only a zero-width node can be one error recovery inserted.
 */
function copyTree(tree: Tree, source: string): SyntaxNode {
  const cursor = tree.walk();
  const language = tree.language;
  let kinds = kindsByLanguage.get(language);
  if (!kinds) kindsByLanguage.set(language, (kinds = []));
  const table = kinds;
  const fields = language.fields;
  const at = (): MutableNode => {
    const typeId = cursor.nodeTypeId;
    const kind = (table[typeId] ??= { type: language.types[typeId] || 'ERROR', named: language.nodeTypeIsNamed(typeId) });
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    return {
      type: kind.type,
      field: fields[cursor.currentFieldId] ?? null,
      named: kind.named,
      missing: start === end && cursor.nodeIsMissing,
      start,
      end,
      text: source.slice(start, end),
      children: NO_CHILDREN,
      source,
    };
  };
  try {
    return copyCurrent(cursor, at);
  } finally {
    cursor.delete();
  }
}

/** The children of every leaf: shared, so frozen (nothing adds children to a copied tree). */
const NO_CHILDREN = Object.freeze([]) as unknown as MutableNode[];

const kindsByLanguage = new WeakMap<Language, { readonly type: string; readonly named: boolean }[]>();

function copyTreeByProperties(tree: Tree, source: string): SyntaxNode {
  const cursor = tree.walk();
  try {
    return copyCurrent(cursor, () => nodeAtCursor(cursor, source));
  } finally {
    cursor.delete();
  }
}

interface MutableNode {
  type: string;
  field: string | null;
  named: boolean;
  missing: boolean;
  start: number;
  end: number;
  text: string;
  children: MutableNode[];
  source: string;
}

function copyCurrent(cursor: TreeCursor, nodeAt: () => MutableNode): SyntaxNode {
  // Iterative, so a deeply nested line cannot overflow the stack here.
  // A node gets its own children array when it turns out to have children (most are leaves).
  const root = nodeAt();
  const stack: MutableNode[] = [root];
  if (!cursor.gotoFirstChild()) return root;
  root.children = [];
  for (;;) {
    const node = nodeAt();
    stack[stack.length - 1]!.children.push(node);
    if (cursor.gotoFirstChild()) {
      node.children = [];
      stack.push(node);
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent() || stack.length <= 1) return root;
      stack.pop();
    }
  }
}

function nodeAtCursor(cursor: TreeCursor, source: string): MutableNode {
  const start = cursor.startIndex;
  const end = cursor.endIndex;
  return {
    type: cursor.nodeType,
    field: cursor.currentFieldName,
    named: cursor.nodeIsNamed,
    missing: cursor.nodeIsMissing,
    start,
    end,
    text: source.slice(start, end),
    children: [],
    source,
  };
}
