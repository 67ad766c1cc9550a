/**
 * The part of the walk that finds code inside words and redirects: command and process
 * substitutions, code in `${…}` words, here-doc bodies, and the files redirects open. The
 * statement walker (statement-walker.ts) extends it with the statements themselves.
 */
import { ARITHMETIC_REASON } from './arithmetic-hazards.js';
import { forkScope, type AnalysisCollector, type Scope } from './collector.js';
import type { Frame, ScriptHost, Stdin } from './command-runner.js';
import { parseParameterExpansion } from './parameter-expansion.js';
import { parseWithRepairs } from './parse-repair.js';
import type { BashParser } from './parser.js';
import { describeRedirect, recordFileRedirect, type RedirectDescription } from './redirects.js';
import { lineConstants } from './same-line-constants.js';
import { STATEMENT_TYPES, type SyntaxNode } from './syntax.js';
import { CODE_TYPES, checkTree, treeReasons } from './tree-check.js';
import { expandWord, inertWord, resolveWord, type Word } from './words.js';

const INHERITED: Stdin = { kind: 'inherited' };

export abstract class CodeScanner implements ScriptHost {
  /** Substitutions and `${…}` the walk has analysed; any other one in a tree is a gap (unresolvable). */
  private reached: Set<SyntaxNode> | undefined;
  /** Arithmetic that is literal if its `$NAME` reads are constant numbers where it runs (tree-check.ts). */
  private arithmeticReads: Map<SyntaxNode, readonly string[]> | undefined;

  constructor(
    protected readonly collector: AnalysisCollector,
    private readonly parser: BashParser,
  ) {}

  abstract walkSequence(children: readonly SyntaxNode[], scope: Scope, frame: Frame): void;
  abstract walkStatement(node: SyntaxNode, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void;

  /** Code another shell process runs (`bash -c`, `su -c`, …): it does not see this shell's variables. */
  analyzeScript(source: string, scope: Scope, frame: Frame): void {
    this.collector.constantsHidden++;
    try {
      this.analyzeCode(source, scope, frame);
    } finally {
      this.collector.constantsHidden--;
    }
  }

  /** Code this shell runs: the line itself, backquoted substitutions (`substitution`). */
  analyzeCode(source: string, scope: Scope, frame: Frame, substitution = false): void {
    // collector.nested without closures: this runs for every line.
    if (!this.collector.enter()) return;
    try {
      this.parseAndWalk(source, scope, frame, substitution ? 'substitution' : 'code');
    } finally {
      this.collector.leave();
    }
  }

  /**
   * `$(< file)` and `` `< file` `` — one input redirection and nothing else — are read by the shell
   * itself, in bash and zsh alike; any other code is walked as statements.
   */
  private walkSubstitutionBody(children: readonly SyntaxNode[], scope: Scope, frame: Frame, substitution: boolean): void {
    const read = substitution ? soleFileRead(children) : undefined;
    if (read) this.applyRedirects([read], scope, frame);
    else this.walkSequence(children, scope, frame);
  }

  /**
   * Parses `source`, records what makes the tree unresolvable (syntax errors, unmodelled types,
   * arithmetic), walks it, then checks that the walk reached every substitution and `${…}` in it:
   * one it did not reach (a construct in a place the walker does not look) is unresolvable, and
   * is analysed on its own so its commands are still reported.
   */
  private parseAndWalk(source: string, scope: Scope, frame: Frame, walk: 'code' | 'substitution' | ((root: SyntaxNode) => void)): void {
    const parsed = parseWithRepairs(this.parser, source);
    if ('failure' in parsed) return this.collector.unresolvable(parsed.failure);
    const findings = checkTree(parsed.root);
    const reasons = treeReasons(findings);
    for (let i = 0; i < reasons.length; i++) this.collector.unresolvable(reasons[i]!);
    const deferred = findings.arithmeticReads.size > 0;
    if (deferred) for (const [node, names] of findings.arithmeticReads) (this.arithmeticReads ??= new Map()).set(node, names);
    if (typeof walk === 'function') walk(parsed.root);
    else {
      // analyzeCode's walk; the constants come from the code as given, not as repaired for the parser.
      this.collector.constants ??= lineConstants(source, parsed.root);
      this.walkSubstitutionBody(parsed.root.children, scope, frame, walk === 'substitution');
    }
    if (deferred) {
      for (const node of findings.arithmeticReads.keys()) {
        if (this.arithmeticReads?.delete(node)) this.collector.unresolvable(ARITHMETIC_REASON); // never reached
      }
    }
    if (findings.code.length === 0) return;
    for (const node of findings.code) {
      if (this.reached?.has(node)) continue;
      this.collector.unresolvable(`shell code in a place the analysis does not walk: ${node.text}`);
      this.scanSubstitutions(node, forkScope(scope), frame);
    }
  }

  /** Marks the code nodes below `node` as analysed (their text was parsed again and walked). */
  private reachAll(node: SyntaxNode): void {
    const pending = [...node.children];
    while (pending.length > 0) {
      const current = pending.pop()!;
      if (CODE_TYPES.has(current.type)) (this.reached ??= new Set()).add(current);
      this.arithmeticReads?.delete(current); // checked in the tree parsed again
      pending.push(...current.children);
    }
  }

  /**
   * Runs every command/process substitution inside `node` (arguments, assignments, strings,
   * here-doc bodies, redirect targets, `${…}` words) in a forked scope. Iterative: words nest deeply.
   */
  scanSubstitutions(node: SyntaxNode, scope: Scope, frame: Frame, skipContinuations = false): void {
    const pending: SyntaxNode[] = [node];
    while (pending.length > 0) {
      const current = pending.pop()!;
      if (this.arithmeticReads && this.arithmeticReads.size > 0) this.checkArithmeticReads(this.arithmeticReads, current);
      if (CODE_TYPES.has(current.type)) {
        this.reached ??= new Set();
        if (this.reached.has(current)) continue;
        this.reached.add(current);
      }
      if (current.type === 'command_substitution' || current.type === 'process_substitution') {
        this.walkSubstitution(current, scope, frame);
        continue;
      }
      if (current.type === 'expansion' && this.walkParameterExpansion(current, scope, frame)) continue;
      if (current !== node && STATEMENT_TYPES.has(current.type)) {
        // Statements nested in a word-like node (here-doc continuations are walked elsewhere).
        if (!skipContinuations) this.walkStatement(current, forkScope(scope), frame, []);
        continue;
      }
      for (let i = current.children.length - 1; i >= 0; i--) pending.push(current.children[i]!);
    }
  }

  /** `$((n + 1))` runs here: literal only if each `$NAME` it reads is a same-line constant number. */
  private checkArithmeticReads(pending: Map<SyntaxNode, readonly string[]>, node: SyntaxNode): void {
    const names = pending.get(node);
    if (!names) return;
    pending.delete(node);
    const constant = this.collector.words.constant;
    if (!names.every((name) => /^-?\d+$/.test(constant?.(name, false) ?? ''))) this.collector.unresolvable(ARITHMETIC_REASON);
  }

  private walkSubstitution(node: SyntaxNode, scope: Scope, frame: Frame): void {
    const innerFrame: Frame = { wrappers: frame.wrappers, stdin: INHERITED };
    if (node.text.startsWith('`')) {
      // Inside backquotes `\`` `\$` `\\` are unescaped before the text is parsed (nested backquotes).
      const inner = node.text.slice(1, node.text.endsWith('`') ? -1 : undefined).replace(/\\([`$\\])/g, '$1');
      this.reachAll(node);
      return this.analyzeCode(inner, forkScope(scope), innerFrame, true);
    }
    // Only a command substitution reads `< file` itself: zsh runs $READNULLCMD for `<(< file)`.
    this.collector.nested(() => this.walkSubstitutionBody(node.children, forkScope(scope), innerFrame, node.type === 'command_substitution'));
  }

  /**
   * `${…}`: analysed from its text (parameter-expansion.ts). False when it could not be read:
   * the caller then scans tree-sitter's children, so substitutions it found are still reported.
   */
  private walkParameterExpansion(node: SyntaxNode, scope: Scope, frame: Frame): boolean {
    const expansion = parseParameterExpansion(node.text);
    if (expansion.hazard) {
      this.collector.unresolvable(expansion.hazard);
      return false;
    }
    this.reachAll(node);
    if (expansion.assigns !== undefined) this.collector.environment.noteRunTimeValue(expansion.assigns);
    for (const word of expansion.code) this.analyzeWordCode(word, scope, frame);
    return true;
  }

  /**
   * The word of `${x:-WORD}` is expanded like an argument: parsed as the arguments of `:` to find
   * its substitutions. Single quotes are literal inside `"${…}"` and `#` starts no comment there,
   * so both are neutralised (at worst a quoted `$(…)` is reported although it does not run).
   * Anything that does not parse as plain arguments (`;`, a redirect) is unresolvable, its commands
   * still reported.
   */
  private analyzeWordCode(word: string, scope: Scope, frame: Frame): void {
    this.collector.nested(() => this.parseAndWalk(`: ${word.replace(/['#]/g, '_')}`, scope, frame, (root) => {
      const statements = root.children.filter((child) => child.named);
      const command = statements[0];
      const plain = statements.length === 1 && command?.type === 'command' && command.children.every((child) => child.field === 'name' || child.field === 'argument');
      if (!plain) this.collector.unresolvable(`code in a parameter expansion the analysis cannot read reliably: ${word}`);
      // The words of `:` are scanned (`:` itself is not run); whatever else the text parsed into is walked.
      const words = command?.type === 'command' ? command.children.filter((child) => child.field !== 'name') : [];
      for (const child of words) this.scanSubstitutions(child, scope, frame);
      const rest = root.children.filter((child) => child !== command);
      if (rest.length > 0) this.walkSequence(rest, forkScope(scope), frame);
    }));
  }

  /** Redirects of something that is not a simple command (a group, a loop, nothing at all). */
  applyRedirects(redirectNodes: readonly SyntaxNode[], scope: Scope, frame: Frame): void {
    if (redirectNodes.length === 0) return;
    const redirects = redirectNodes.map((node) => ({ node, description: describeRedirect(node) }));
    this.openRedirects(redirects, scope, frame, frame.stdin);
    const extraArguments = redirects.flatMap(({ description }) => ('extraArguments' in description ? description.extraArguments : []));
    if (extraArguments.length > 0) this.collector.unresolvable('words after a redirect of a compound command');
    for (const word of extraArguments) this.scanSubstitutions(word, scope, frame);
  }

  /**
   * Records file targets and analyses substitutions in targets and here-doc bodies (words after a
   * target are arguments, analysed with the command); returns the resulting standard input.
   */
  openRedirects(redirects: readonly { node: SyntaxNode; description: RedirectDescription }[], scope: Scope, frame: Frame, stdin: Stdin, scan = true): Stdin {
    let input = stdin;
    for (const { node, description } of redirects) {
      switch (description.kind) {
        case 'file':
          if (scan) this.scanSubstitutions(description.target, scope, frame);
          recordFileRedirect(description, scope, this.collector);
          if (description.access === 'read' && description.operator === '<') input = { kind: 'file' };
          break;
        case 'herestring': {
          if (scan && description.word) this.scanSubstitutions(description.word, scope, frame);
          const word = description.word && resolveWord(description.word, this.collector.words);
          input = { kind: 'text', text: word && !word.dynamic ? word.text : undefined };
          break;
        }
        case 'heredoc':
          if (scan) this.scanSubstitutions(node, scope, frame, true);
          if (scan && description.body) this.runHeredocBackquotes(description.body.text, scope, frame);
          input = { kind: 'text', text: description.literalBody };
          // Nested redirects were scanned with the here-doc node; only their targets remain.
          input = this.openRedirects(description.nested.map((nested) => ({ node: nested, description: describeRedirect(nested) })), scope, frame, input, false);
          break;
        case 'descriptor':
          break;
      }
    }
    return input;
  }

  /**
   * An unquoted here-doc body runs its backquoted code (bash does), which tree-sitter leaves as
   * text: each `…` is analysed as code; an unterminated one is unresolvable.
   */
  private runHeredocBackquotes(body: string, scope: Scope, frame: Frame): void {
    const segments = backquotedCode(body);
    if (segments === undefined) return this.collector.unresolvable('unterminated backquote in a here-doc body');
    for (const code of segments) this.analyzeCode(code, forkScope(scope), { wrappers: frame.wrappers, stdin: INHERITED });
  }

  protected expandWords(nodes: readonly SyntaxNode[]): Word[] {
    const words: Word[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const inert = inertWord(node); // the usual word: no result object, no list of one
      if (inert) { words.push(inert); continue; }
      const result = expandWord(node, this.collector.words);
      if ('error' in result) {
        this.collector.unresolvable(result.error);
        words.push(resolveWord(node, this.collector.words));
      } else {
        for (let k = 0; k < result.words.length; k++) words.push(result.words[k]!);
      }
    }
    return words;
  }
}

/** The code inside each unescaped `…` of here-doc text (`\``, `\$`, `\\` unescaped inside); undefined when one is not closed. */
function backquotedCode(text: string): string[] | undefined {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] !== '`') continue;
    let code = '';
    let j = i + 1;
    for (; j < text.length && text[j] !== '`'; j++) {
      if (text[j] === '\\' && j + 1 < text.length && '`$\\'.includes(text[j + 1]!)) code += text[++j];
      else code += text[j];
    }
    if (j >= text.length) return undefined;
    out.push(code);
    i = j;
  }
  return out;
}

/** The one `< file` redirection that is all of a substitution's code, bare or as a statement. */
function soleFileRead(children: readonly SyntaxNode[]): SyntaxNode | undefined {
  const statements = children.filter((child) => child.named && child.type !== 'comment');
  if (statements.length !== 1) return undefined;
  const only = statements[0]!;
  const redirect = only.type === 'file_redirect' ? only
    : only.type === 'redirected_statement' && !only.children.some((c) => c.field === 'body') && only.children.filter((c) => c.named).length === 1 ? only.children.find((c) => c.named)
      : undefined;
  if (redirect?.type !== 'file_redirect') return undefined;
  const plainInput = redirect.children.some((c) => !c.named && c.type === '<') && !redirect.children.some((c) => c.field === 'descriptor');
  return plainInput ? redirect : undefined;
}
