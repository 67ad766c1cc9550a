#!/usr/bin/env node
/**
 * Lists the exports of src/ that no other module uses: dead code, or an `export` keyword too many.
 *
 *   node scripts/dead-exports.mjs [--json] [--all]   one line per dead export; exit 1 when there is any
 *
 * A use is an import of the name from any module under src/, test/, bench/, scripts/ or examples/
 * (bench and examples import the built `dist/…js`, which stands for `src/…ts`): named imports,
 * re-exports, `import * as ns` followed by `ns.name`, and `import()` whose result is destructured,
 * read as `(await import(…)).name`, or handed to `.then((m) => m.name)`. A namespace or dynamic import
 * used any other way counts as a use of every export of that module. Each dead export is marked
 * `unused` (nothing refers to it at all: delete it) or `local` (only its own file uses it: drop the
 * `export`); `--all` also lists `signature` types (named by another export of their file: part of
 * that export's contract, so kept exported, and not counted as dead). Syntax only, no type checker: `typescript` parses, which keeps it to a second or two.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const SOURCE_ROOTS = ['src'];
const USER_ROOTS = ['src', 'test', 'bench', 'scripts', 'examples'];
const SCRIPT = /\.(?:ts|mts|mjs|js)$/;

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(full));
    else if (SCRIPT.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files.sort();
}

function parse(file) {
  const kind = file.endsWith('.ts') || file.endsWith('.mts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
}

/** The src/ module a relative specifier names (`dist/x.js` standing for `src/x.ts`), or undefined. */
function resolveModule(root, from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  let target = resolve(dirname(from), specifier);
  const dist = join(root, 'dist') + '/';
  if (target.startsWith(dist)) target = join(root, 'src', target.slice(dist.length));
  for (const candidate of [target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts'), target]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  return undefined;
}

const hasModifier = (node, kind) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);

/** The exports one module declares: `{ name, local, line }` (local: its name inside the file). */
function exportsOf(source) {
  const found = [];
  const add = (name, local, node) =>
    found.push({ name, local, node, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) {
          // A re-export (`export { x } from`) has no local binding of its own.
          const local = statement.moduleSpecifier ? undefined : (element.propertyName ?? element.name).text;
          add(element.name.text, local, element);
        }
      }
      continue;
    }
    if (!hasModifier(statement, ts.SyntaxKind.ExportKeyword)) continue;
    if (hasModifier(statement, ts.SyntaxKind.DefaultKeyword)) {
      add('default', statement.name?.text, statement);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) add(declaration.name.text, declaration.name.text, declaration);
      }
    } else if (statement.name !== undefined && ts.isIdentifier(statement.name)) {
      add(statement.name.text, statement.name.text, statement);
    }
  }
  return found;
}

/** Names read as `id.name` where `id` is the given identifier's binding; undefined when `id` escapes otherwise. */
function propertiesRead(source, binding) {
  const names = new Set();
  let escapes = false;
  const visit = (node) => {
    if (ts.isIdentifier(node) && node.text === binding.text && node !== binding) {
      const parent = node.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === node) names.add(parent.name.text);
      else if (ts.isQualifiedName(parent) && parent.left === node) names.add(parent.right.text);
      else if (!(ts.isPropertyAccessExpression(parent) && parent.name === node)) escapes = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return escapes ? undefined : names;
}

/** Names taken from a module value (a namespace or an awaited import()), or undefined for "all of them". */
function namesTakenFrom(source, expression) {
  let node = expression;
  while (ts.isParenthesizedExpression(node.parent) || ts.isAwaitExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  // import('x').then((m) => m.name)
  if (node === expression && ts.isPropertyAccessExpression(parent) && parent.name.text === 'then') {
    const callback = ts.isCallExpression(parent.parent) ? parent.parent.arguments[0] : undefined;
    if (callback && (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) && callback.parameters.length === 1) {
      return namesOfBinding(source, callback.parameters[0].name);
    }
    return undefined;
  }
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return new Set([parent.name.text]);
  if (ts.isVariableDeclaration(parent) && parent.initializer === node) return namesOfBinding(source, parent.name);
  // const [{ A }, { B }] = await Promise.all([import('a'), import('b')])
  if (ts.isArrayLiteralExpression(parent)) {
    const index = parent.elements.indexOf(node);
    let all = parent.parent;
    if (ts.isCallExpression(all) && ts.isPropertyAccessExpression(all.expression) && all.expression.getText(source) === 'Promise.all') {
      while (ts.isParenthesizedExpression(all.parent) || ts.isAwaitExpression(all.parent)) all = all.parent;
      const declaration = all.parent;
      if (ts.isVariableDeclaration(declaration) && ts.isArrayBindingPattern(declaration.name)) {
        const element = declaration.name.elements[index];
        if (element && ts.isBindingElement(element)) return namesOfBinding(source, element.name);
        return new Set();
      }
    }
  }
  return undefined;
}

function namesOfBinding(source, name) {
  if (ts.isIdentifier(name)) return propertiesRead(source, name);
  if (ts.isObjectBindingPattern(name)) {
    const names = new Set();
    for (const element of name.elements) {
      if (element.dotDotDotToken) return undefined;
      const key = element.propertyName ?? element.name;
      if (!ts.isIdentifier(key) && !ts.isStringLiteral(key)) return undefined;
      names.add(key.text);
    }
    return names;
  }
  return undefined;
}

/** Every use of a src/ module's exports: Map(module → Set(name) | 'all'), from every file under the user roots. */
function usesOf(root, files) {
  const uses = new Map();
  const use = (module, names) => {
    if (module === undefined) return;
    if (names === undefined) return uses.set(module, 'all');
    const before = uses.get(module);
    if (before === 'all') return;
    const set = before ?? new Set();
    for (const name of names) set.add(name);
    uses.set(module, set);
  };
  for (const file of files) {
    const source = parse(file);
    const visit = (node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const module = resolveModule(root, file, node.moduleSpecifier.text);
        const clause = node.importClause;
        const names = [];
        if (clause?.name) names.push('default');
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
        use(module, names);
        if (bindings && ts.isNamespaceImport(bindings)) use(module, propertiesRead(source, bindings.name));
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const module = resolveModule(root, file, node.moduleSpecifier.text);
        const clause = node.exportClause;
        if (clause === undefined || !ts.isNamedExports(clause)) use(module, undefined);
        else use(module, clause.elements.map((e) => (e.propertyName ?? e.name).text));
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const specifier = node.arguments[0];
        if (specifier && ts.isStringLiteralLike(specifier)) use(resolveModule(root, file, specifier.text), namesTakenFrom(source, node));
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        const module = resolveModule(root, file, node.argument.literal.text);
        use(module, node.qualifier ? [ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText(source)] : undefined);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return uses;
}

/** Whether `local` is referred to in `within` (default: its whole file) other than where it is declared or exported. */
function usedLocally(source, local, within = source) {
  if (local === undefined) return false;
  let used = false;
  const visit = (node) => {
    if (used) return;
    if (ts.isIdentifier(node) && node.text === local) {
      const parent = node.parent;
      const declares =
        (parent.name === node && !ts.isPropertyAccessExpression(parent) && !ts.isQualifiedName(parent) && !ts.isShorthandPropertyAssignment(parent)) ||
        ts.isExportSpecifier(parent);
      const isMemberName = (ts.isPropertyAccessExpression(parent) && parent.name === node) || (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isPropertySignature(parent) && parent.name === node) || (ts.isMethodDeclaration(parent) && parent.name === node) ||
        (ts.isPropertyDeclaration(parent) && parent.name === node) || (ts.isMethodSignature(parent) && parent.name === node);
      if (!declares && !isMemberName) used = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(within);
  return used;
}

/**
 * A type another export of the same file names (the parameter type of an exported function, a
 * member of an exported interface) is part of that export's contract, not dead: 'signature'.
 */
function statusOf(source, entry, exported) {
  const isType = ts.isInterfaceDeclaration(entry.node) || ts.isTypeAliasDeclaration(entry.node) || ts.isClassDeclaration(entry.node);
  if (isType && exported.some((other) => other.node !== entry.node && other.local !== undefined && usedLocally(source, entry.local, other.node))) return 'signature';
  return usedLocally(source, entry.local) ? 'local' : 'unused';
}

/** The dead exports: `{ file, line, name, status: 'unused' | 'local' }`, files relative to `root`. */
export function deadExports(root = ROOT) {
  const users = USER_ROOTS.flatMap((dir) => filesUnder(join(root, dir)));
  const uses = usesOf(root, users);
  const dead = [];
  for (const file of SOURCE_ROOTS.flatMap((dir) => filesUnder(join(root, dir))).filter((f) => f.endsWith('.ts'))) {
    const used = uses.get(file);
    if (used === 'all') continue;
    const source = parse(file);
    const exported = exportsOf(source);
    for (const entry of exported) {
      if (used?.has(entry.name)) continue;
      dead.push({ file: relative(root, file), line: entry.line, name: entry.name, status: statusOf(source, entry, exported) });
    }
  }
  return dead;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const all = process.argv.includes('--all');
  const dead = deadExports().filter((d) => all || d.status !== 'signature');
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(dead, null, 2)}\n`);
  else for (const d of dead) process.stdout.write(`${d.file}:${d.line}  ${d.name}  (${d.status})\n`);
  process.stderr.write(`${dead.length} dead export${dead.length === 1 ? '' : 's'} in src/\n`);
  process.exitCode = dead.length === 0 ? 0 : 1;
}
