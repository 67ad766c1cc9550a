/**
 * Redirections: which file a redirect reads or writes, which are only fd juggling (`2>&1`, `>&-`),
 * and what a here-doc / here-string feeds to the command's standard input.
 */
import type { AnalysisCollector, Scope } from './collector.js';
import { isHarmlessDevice, kernelPathOf, resolvePath } from './paths.js';
import { childByField, childrenByField, joinSplitWords, type SyntaxNode } from './syntax.js';
import { resolveWord } from './words.js';

export type RedirectDescription =
  | {
      readonly kind: 'file';
      readonly operator: string;
      readonly access: 'read' | 'write';
      readonly target: SyntaxNode;
      /** Words tree-sitter attached to the redirect that are really arguments (`echo a >f b`). */
      readonly extraArguments: readonly SyntaxNode[];
    }
  | { readonly kind: 'descriptor'; readonly extraArguments: readonly SyntaxNode[] }
  | {
      readonly kind: 'heredoc';
      /** The body when the shell passes it verbatim (quoted delimiter, or nothing to expand). */
      readonly literalBody: string | undefined;
      readonly body: SyntaxNode | undefined;
      /** `cat <<EOF > f`: redirects written after the here-doc start. */
      readonly nested: readonly SyntaxNode[];
      /** `cat <<EOF && x` / `cat <<EOF || x`: the rest of the list, parsed inside the here-doc. */
      readonly continuation: { readonly operator: string; readonly right: SyntaxNode } | undefined;
      /** `cat <<EOF | x`: the rest of the pipeline, parsed inside the here-doc. */
      readonly pipeline: SyntaxNode | undefined;
    }
  | { readonly kind: 'herestring'; readonly word: SyntaxNode | undefined };

const WRITE_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

export function describeRedirect(node: SyntaxNode): RedirectDescription {
  if (node.type === 'heredoc_redirect') return describeHeredoc(node);
  if (node.type === 'herestring_redirect') return { kind: 'herestring', word: node.children.find((child) => child.named) };
  const destinations = joinSplitWords(childrenByField(node, 'destination'));
  const [target, ...extraArguments] = destinations;
  const operator = operatorOf(node);
  if (!target || operator.endsWith('-')) return { kind: 'descriptor', extraArguments };
  if (operator === '>&' || operator === '<&') {
    // `>&word` with a non-number word is bash's old spelling of `&>word`.
    if (/^\d+$/.test(target.text) || target.text === '-') return { kind: 'descriptor', extraArguments };
    return { kind: 'file', operator, access: operator === '>&' ? 'write' : 'read', target, extraArguments };
  }
  return { kind: 'file', operator, access: WRITE_OPERATORS.has(operator) ? 'write' : 'read', target, extraArguments };
}

/** The operator as written; `<` followed by an ERROR `>` is tree-sitter's misparse of `<>`. */
function operatorOf(node: SyntaxNode): string {
  const index = node.children.findIndex((child) => !child.named && child.type !== 'ERROR');
  const token = node.children[index];
  if (!token) return '';
  const next = node.children[index + 1];
  if (token.type === '<' && next && isReadWriteMisparse(next) && next.start === token.end) return '<>';
  return token.type;
}

/** The ERROR node tree-sitter-bash produces for the `>` of `<>`; not a real syntax error. */
export function isReadWriteMisparse(node: SyntaxNode): boolean {
  return node.type === 'ERROR' && node.text === '>' && node.children.length === 1 && node.children[0]!.type === '>';
}

function describeHeredoc(node: SyntaxNode): RedirectDescription {
  const start = node.children.find((child) => child.type === 'heredoc_start');
  const body = node.children.find((child) => child.type === 'heredoc_body');
  const quotedDelimiter = !!start && /['"\\]/.test(start.text);
  const bodyText = body?.text ?? '';
  const expands = !quotedDelimiter && /[$`\\]/.test(bodyText);
  const operator = childByField(node, 'operator');
  const right = childByField(node, 'right');
  return {
    kind: 'heredoc',
    literalBody: expands ? undefined : bodyText,
    body: quotedDelimiter ? undefined : body,
    nested: childrenByField(node, 'redirect'),
    continuation: operator && right ? { operator: operator.type, right } : undefined,
    pipeline: node.children.find((child) => child.type === 'pipeline'),
  };
}

/**
 * Records a file redirect's target as a Redirection, resolved against the scope's cwd. An unquoted
 * glob in the target is expanded by bash (not in POSIX mode): one match → that file, none → the
 * word literally, several → "ambiguous redirect" (nothing written). So the target is reported as a
 * pattern (`glob: true`) that may name any file it matches.
 */
export function recordFileRedirect(
  redirect: Extract<RedirectDescription, { kind: 'file' }>,
  scope: Scope,
  collector: AnalysisCollector,
): void {
  if (redirect.target.type === 'process_substitution') return; // a pipe, analysed as commands
  const word = resolveWord(redirect.target, collector.words);
  if (word.dynamic || word.tildeUnresolved || word.text === '') {
    collector.unresolvable(`redirect target known only at run time: ${redirect.target.text}`);
    return;
  }
  const cwd = collector.cwdFor(scope);
  const path = resolvePath(cwd, word.text);
  const kernelPath = kernelPathOf(cwd, word.text);
  if (isHarmlessDevice(kernelPath ?? path)) return;
  collector.redirections.push({ path, access: redirect.access, operator: redirect.operator, ...(kernelPath ? { kernelPath } : {}), ...(word.glob ? { glob: true } : {}) });
}

/** Records a file a command's own option writes (`time -o f`, `find -fprint f`) or reads (`xargs -a f`). */
export function recordOptionFile(
  word: { text: string; dynamic: boolean; tildeUnresolved: boolean; glob?: boolean },
  access: 'read' | 'write',
  operator: string,
  scope: Scope,
  collector: AnalysisCollector,
): void {
  if (word.dynamic || word.tildeUnresolved || word.text === '') {
    collector.unresolvable(`file ${access === 'write' ? 'written' : 'read'} by ${operator} known only at run time: ${word.text}`);
    return;
  }
  const cwd = collector.cwdFor(scope);
  const path = resolvePath(cwd, word.text);
  const kernelPath = kernelPathOf(cwd, word.text);
  if (!isHarmlessDevice(kernelPath ?? path)) collector.redirections.push({ path, access, operator, ...(kernelPath ? { kernelPath } : {}), ...(word.glob ? { glob: true } : {}) });
}
