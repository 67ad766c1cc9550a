#!/usr/bin/env node
/**
 * Lists the import cycles among the modules of src/ (issue 13: "no import cycle").
 *
 *   node scripts/import-cycles.mjs [dir]     one line per cycle; exit 1 when there is any
 *
 * Every edge counts: static imports, `import type`, re-exports (`export … from`) and `import()`.
 * A type-only edge costs nothing at run time, but it still ties two modules together for a reader
 * and for any later change that turns it into a value import. Each cycle is reported once, as the
 * shortest loop through the strongly connected component it belongs to, with `(type)` or
 * `(dynamic)` marking edges that are not plain value imports.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');

/** Every .ts file under `dir` (declarations excluded). */
function sourceFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files.sort();
}

/** A relative specifier (`./x.js`) to the .ts file it names, or undefined for packages and node: modules. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(from), specifier);
  for (const candidate of [target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts'), target]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The modules one file imports: `{ to, kind }` with kind 'value' | 'type' | 'dynamic'. */
export function importsOf(file, text = readFileSync(file, 'utf8')) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edges = [];
  const add = (specifier, kind) => {
    const to = resolveSpecifier(file, specifier);
    if (to !== undefined) edges.push({ to, kind });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly ? 'type' : 'value');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly ? 'type' : 'value');
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node.arguments[0].text, 'dynamic');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** The import graph of `dir`: file → Map(target → kind), the strongest kind winning (value > dynamic > type). */
export function importGraph(dir) {
  const rank = { type: 0, dynamic: 1, value: 2 };
  const graph = new Map();
  for (const file of sourceFiles(dir)) {
    const targets = new Map();
    for (const { to, kind } of importsOf(file)) {
      const before = targets.get(to);
      if (before === undefined || rank[kind] > rank[before]) targets.set(to, kind);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one module, or one module importing itself (Tarjan). */
function cyclicComponents(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const connect = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v).has(v)) components.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return components;
}

/** The shortest loop from `start` back to itself inside `members` (breadth-first). */
function shortestLoop(graph, start, members) {
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v).keys()) {
      if (!members.has(w)) continue;
      if (w === start) {
        const loop = [v];
        while (loop[0] !== start) loop.unshift(previous.get(loop[0]));
        return [...loop, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** The cycles of `dir`: one per cyclic component, `{ modules, loop: [{ from, to, kind }] }`, paths relative to the repository. */
export function importCycles(dir = join(ROOT, 'src')) {
  const graph = importGraph(dir);
  return cyclicComponents(graph).map((component) => {
    const members = new Set(component);
    const loop = shortestLoop(graph, component[0], members);
    const name = (file) => relative(ROOT, file);
    return {
      modules: component.map(name),
      loop: loop.slice(1).map((to, i) => ({ from: name(loop[i]), to: name(to), kind: graph.get(loop[i]).get(to) })),
    };
  });
}

/** One line: `a.ts → b.ts (type) → a.ts`, plus the size of the component when the loop is not all of it. */
export function formatCycle(cycle) {
  const steps = cycle.loop.map((edge) => ` → ${edge.to}${edge.kind === 'value' ? '' : ` (${edge.kind})`}`).join('');
  const more = cycle.modules.length > cycle.loop.length ? `  [${cycle.modules.length} modules tied: ${cycle.modules.join(', ')}]` : '';
  return `${cycle.loop[0]?.from ?? cycle.modules[0]}${steps}${more}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dir = resolve(process.argv[2] ?? join(ROOT, 'src'));
  const cycles = importCycles(dir);
  for (const cycle of cycles) process.stdout.write(`${formatCycle(cycle)}\n`);
  process.stderr.write(`${cycles.length} import cycle${cycles.length === 1 ? '' : 's'} in ${relative(ROOT, dir) || '.'}\n`);
  process.exitCode = cycles.length === 0 ? 0 : 1;
}
