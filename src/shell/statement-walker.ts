/**
 * Walks a bash syntax tree the way bash executes it: sequences share the cwd, `&&`/`||` make later
 * directory changes conditional, pipeline parts / subshells / substitutions / background jobs run
 * in a forked scope, and a redirect written after a list or pipeline applies to its last command.
 */
import { forkScope, forgetCwd, type Scope } from './collector.js';
import { checkAssignments } from './command-checks.js';
import { runInvocation, type Frame } from './command-runner.js';
import { CodeScanner } from './code-scanner.js';
import { isHazardousVariable } from './hazards.js';
import { describeRedirect } from './redirects.js';
import { childByField, childrenByField, joinSplitWords, STATEMENT_TYPES, type SyntaxNode } from './syntax.js';
import { assignmentsIn, flattenWords, isExitCommand, isMissing, sameDirectory, listOperator, listStatement } from './walker-parts.js';

const CONDITIONAL_TYPES = new Set(['if_statement', 'while_statement', 'for_statement', 'c_style_for_statement', 'case_statement']);
const LOOP_TYPES = new Set(['while_statement', 'for_statement', 'c_style_for_statement']);
const BRANCH_TYPES = new Set(['elif_clause', 'else_clause', 'case_item']);
const REDIRECT_TYPES = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
/** Shared by commands without assignments (results are frozen, so sharing is safe). */
const NO_TEXTS: readonly string[] = Object.freeze([]);
/** No trailing redirects (shared: nothing adds to a `trailing` list). */
const NO_NODES: readonly SyntaxNode[] = Object.freeze([]);
const PIPE_STDIN = { kind: 'pipe' } as const;
/** A command without redirects (shared: never added to). */
const NO_REDIRECTS: readonly { node: SyntaxNode; description: ReturnType<typeof describeRedirect> }[] = Object.freeze([]);

const NULL_COMMAND_REASON = 'a statement of redirections alone runs $NULLCMD in zsh, a program known only at run time';

export class StatementWalker extends CodeScanner {
  /** Statements in order; a statement followed by `&` runs in the background, in a forked scope. */
  walkSequence(children: readonly SyntaxNode[], scope: Scope, frame: Frame): void {
    for (let index = 0; index < children.length; index++) {
      const child = children[index]!;
      if (STATEMENT_TYPES.has(child.type)) {
        const background = children[index + 1]?.type === '&';
        this.walkStatement(child, background ? forkScope(scope) : scope, frame, NO_NODES);
      } else if (child.type === 'ERROR') {
        this.collector.nested(() => this.walkSequence(child.children, scope, frame));
      } else if (REDIRECT_TYPES.has(child.type)) {
        // `$(< file)` alone is handled before (code-scanner.ts); a redirection with no command elsewhere runs $NULLCMD in zsh.
        this.collector.unresolvable(NULL_COMMAND_REASON);
        this.applyRedirects([child], scope, frame);
      } else if (child.named && child.type !== 'comment') {
        this.scanSubstitutions(child, scope, frame);
      }
    }
  }

  /** `trailing`: redirects written after an enclosing list/pipeline, which bash applies here. */
  walkStatement(node: SyntaxNode, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    // collector.nested without a closure (this runs for every statement).
    if (!this.collector.enter()) return;
    try {
      this.dispatch(node, scope, frame, trailing);
    } finally {
      this.collector.leave();
    }
  }

  private dispatch(node: SyntaxNode, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    if (CONDITIONAL_TYPES.has(node.type)) {
      this.applyRedirects(trailing, scope, frame);
      return this.walkConditional(node, scope, frame);
    }
    switch (node.type) {
      case 'ERROR':
        return this.walkSequence(node.children, scope, frame);
      case 'command':
        return this.walkCommand(node, scope, frame, trailing);
      case 'redirected_statement':
        return this.walkRedirected(node, scope, frame, trailing);
      case 'list':
        return this.walkList(node, scope, frame, trailing);
      case 'pipeline':
        return this.walkPipeline(node.children, scope, frame, trailing, false);
      case 'negated_command':
        return this.walkLastWith(node.children, scope, frame, trailing);
      case 'subshell':
        this.applyRedirects(trailing, scope, frame);
        return this.walkSequence(node.children, forkScope(scope), frame);
      case 'compound_statement':
        this.applyRedirects(trailing, scope, frame);
        if (node.children[0]?.type === '((') return this.scanSubstitutions(node, scope, frame); // arithmetic
        return this.walkSequence(node.children, scope, frame);
      case 'function_definition':
        return this.walkFunctionDefinition(node, scope, frame);
      case 'variable_assignment':
      case 'variable_assignments':
        this.applyRedirects(trailing, scope, frame);
        checkAssignments(assignmentsIn(node).map((assignment) => assignment.text), this.collector);
        this.scanSubstitutions(node, scope, frame);
        return this.collector.constants?.assign(node, this.collector.words);
      case 'declaration_command':
      case 'unset_command':
      case 'test_command':
        return this.walkBuiltinStatement(node, scope, frame, trailing);
      default:
        this.collector.unresolvable(`unsupported shell construct: ${node.type}`);
        return this.scanSubstitutions(node, scope, frame);
    }
  }

  private walkCommand(node: SyntaxNode, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    // One pass over the children (this runs for every simple command): the first `name`, the
    // `argument`s, `redirect`s and assignments, in source order.
    let name: SyntaxNode | undefined;
    const words: SyntaxNode[] = [];
    // Most commands have neither: the shared empty list until one is found.
    let ownRedirects: SyntaxNode[] | readonly SyntaxNode[] = NO_NODES;
    let assignments: SyntaxNode[] | readonly SyntaxNode[] = NO_NODES;
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      if (child.field === 'name') {
        if (!name) {
          name = child;
          if (!isMissing(child)) words.push(child);
        }
      } else if (child.field === 'argument') {
        if (!isMissing(child)) words.push(child);
      } else if (child.field === 'redirect') {
        if (ownRedirects === NO_NODES) ownRedirects = [];
        (ownRedirects as SyntaxNode[]).push(child);
      }
      if (child.type === 'variable_assignment') {
        if (assignments === NO_NODES) assignments = [];
        (assignments as SyntaxNode[]).push(child);
      }
    }
    // The scope before the command runs, for here-doc continuations (`cat <<EOF || cd x`).
    const start = ownRedirects.some((redirect) => redirect.type === 'heredoc_redirect') ? forkScope(scope) : scope;
    const redirectNodes = trailing.length === 0 ? ownRedirects : [...ownRedirects, ...trailing];
    const redirects = redirectNodes.length === 0 ? NO_REDIRECTS : redirectNodes.map((redirect) => ({ node: redirect, description: describeRedirect(redirect) }));
    let extra = false;
    // Index loops over lists that may be the shared frozen empty ones: for-of over those allocates iterator results.
    for (let r = 0; r < redirects.length; r++) {
      const description = redirects[r]!.description;
      if (!('extraArguments' in description)) continue;
      for (const word of description.extraArguments) {
        if (!isMissing(word)) {
          words.push(word);
          extra = true;
        }
      }
    }
    if (extra) words.sort((a, b) => a.start - b.start);
    const wordNodes = joinSplitWords(words);
    // Substitutions run first, then redirects are opened, then the command runs.
    for (let i = 0; i < assignments.length; i++) this.scanSubstitutions(assignments[i]!, scope, frame);
    for (let i = 0; i < wordNodes.length; i++) this.scanSubstitutions(wordNodes[i]!, scope, frame);
    const stdin = redirects.length === 0 ? frame.stdin : this.openRedirects(redirects, scope, frame, frame.stdin);
    const assignmentTexts = assignments.length === 0 ? NO_TEXTS : assignments.map((assignment) => assignment.text);
    const argv = this.expandWords(wordNodes);
    checkAssignments(assignmentTexts, this.collector, argv[0]?.dynamic === false ? argv[0].text : undefined);
    if (argv.length > 0 && name && !isMissing(name)) {
      runInvocation(
        { argv, assignments: assignmentTexts, wrappers: frame.wrappers, text: node.text, stdin, scope, suppliedArguments: false },
        this.collector,
        this,
      );
    }
    this.walkHeredocContinuations(ownRedirects, start, scope, frame);
  }

  private walkRedirected(node: SyntaxNode, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    const start = forkScope(scope);
    const body = childByField(node, 'body');
    const redirects = childrenByField(node, 'redirect');
    if (body) this.walkStatement(body, scope, frame, [...redirects, ...trailing]);
    else {
      // Redirections with no command: bash runs nothing, but zsh runs `$NULLCMD` (or `$READNULLCMD`),
      // a program named only in the environment. (`$(< file)` alone is read by both; see walkSequence.)
      this.collector.unresolvable(NULL_COMMAND_REASON);
      this.applyRedirects([...redirects, ...trailing], scope, frame);
    }
    this.walkHeredocContinuations(redirects, start, scope, frame);
  }

  /** A left-nested chain of `&&` / `||`, flattened so long chains do not nest deeply. */
  private walkList(node: SyntaxNode, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    // Collected from the right (last step first), walked from the left; two parallel lists, no object per step.
    const statements: SyntaxNode[] = [];
    const operators: (string | undefined)[] = [];
    let current: SyntaxNode | undefined = node;
    while (current?.type === 'list') {
      const right = listStatement(current, 1);
      if (right) {
        statements.push(right);
        operators.push(listOperator(current));
      }
      current = listStatement(current, 0);
    }
    if (current) {
      statements.push(current);
      operators.push(undefined);
    }
    const start = forkScope(scope);
    for (let index = statements.length - 1; index >= 0; index--) {
      const operator = operators[index];
      const statement = statements[index]!;
      const redirects = index === 0 ? trailing : NO_NODES;
      if (operator === '||') this.walkOrBranch(statement, start, scope, frame, redirects);
      else this.walkStatement(statement, scope, frame, redirects);
    }
  }

  /** `left || right`: right runs only if left failed, so a cd in either leaves the cwd unknown. */
  private walkOrBranch(right: SyntaxNode, start: Scope, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    const leftChanged = !sameDirectory(start, scope);
    const rightScope = forkScope(start);
    if (isExitCommand(right)) return this.walkStatement(right, rightScope, frame, trailing); // `cd x || exit 1`
    if (leftChanged) forgetCwd(rightScope);
    this.walkStatement(right, rightScope, frame, trailing);
    if (leftChanged || !sameDirectory(start, rightScope)) forgetCwd(scope);
  }

  /** Each part runs in its own subshell; parts after the first read a pipe. */
  private walkPipeline(children: readonly SyntaxNode[], scope: Scope, frame: Frame, trailing: readonly SyntaxNode[], afterPipe: boolean): void {
    const parts = children.filter((child) => STATEMENT_TYPES.has(child.type) || child.type === 'ERROR');
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index]!;
      const partFrame = index > 0 || afterPipe ? { ...frame, stdin: PIPE_STDIN } : frame;
      const redirects = index === parts.length - 1 ? trailing : NO_NODES;
      if (part.type === 'ERROR') this.walkSequence(part.children, forkScope(scope), partFrame);
      else this.walkStatement(part, forkScope(scope), partFrame, redirects);
    }
  }

  private walkLastWith(children: readonly SyntaxNode[], scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    const statements = children.filter((child) => STATEMENT_TYPES.has(child.type));
    statements.forEach((statement, index) => this.walkStatement(statement, scope, frame, index === statements.length - 1 ? trailing : []));
  }

  /** if / while / for / case: branches fork from the head; a cd inside leaves the cwd unknown after. */
  private walkConditional(node: SyntaxNode, scope: Scope, frame: Frame): void {
    const start = forkScope(scope);
    const head = forkScope(scope);
    const isLoop = LOOP_TYPES.has(node.type);
    const branches: Scope[] = [head];
    let thenBranch: Scope | undefined;
    for (const child of node.children) {
      if (child.type === 'do_group') {
        this.walkSequence(child.children, head, frame);
      } else if (BRANCH_TYPES.has(child.type)) {
        const branch = forkScope(head);
        branches.push(branch);
        this.walkSequence(child.children, branch, frame);
      } else if (STATEMENT_TYPES.has(child.type)) {
        const inHead = isLoop || child.field === 'condition' || node.type !== 'if_statement';
        if (!inHead && !thenBranch) branches.push((thenBranch = forkScope(head)));
        this.walkStatement(child, inHead ? head : thenBranch!, frame, []);
      } else if (child.field === 'variable') {
        // `for PATH in …` / `select CDPATH in …` assign the name like `NAME=…` does (select sets REPLY too).
        this.collector.environment.noteLoopVariable(child.text, node.children[0]?.type === 'select');
        if (isHazardousVariable(child.text)) this.collector.unresolvable(`${node.children[0]?.text ?? 'for'} sets ${child.text}, which changes what a command runs`);
      } else if (child.named && child.type !== 'comment') {
        this.scanSubstitutions(child, head, frame);
      }
    }
    if (branches.every((branch) => sameDirectory(start, branch))) return;
    if (isLoop) this.collector.unresolvable('cd inside a loop');
    forgetCwd(scope);
  }

  private walkFunctionDefinition(node: SyntaxNode, scope: Scope, frame: Frame): void {
    const name = childByField(node, 'name');
    if (name) this.collector.defineFunction(name.text);
    const body = childByField(node, 'body');
    // The body runs when called, possibly elsewhere: analysed so rules see it, calls are unresolvable.
    if (body) this.walkStatement(body, forkScope(scope), frame, []);
  }

  /** `export`/`local`/`declare`/`unset`/`[ … ]`/`[[ … ]]`: reported as commands of their own. */
  private walkBuiltinStatement(node: SyntaxNode, scope: Scope, frame: Frame, trailing: readonly SyntaxNode[]): void {
    this.scanSubstitutions(node, scope, frame);
    this.applyRedirects(trailing, scope, frame);
    checkAssignments(assignmentsIn(node).map((assignment) => assignment.text), this.collector);
    const argv = flattenWords(node, this.collector, 0);
    runInvocation(
      { argv, assignments: [], wrappers: frame.wrappers, text: node.text, stdin: frame.stdin, scope, suppliedArguments: false },
      this.collector,
      this,
    );
  }

  /** tree-sitter parses `cat <<EOF && x` / `cat <<EOF | x` with the rest inside the here-doc node. */
  private walkHeredocContinuations(redirects: readonly SyntaxNode[], start: Scope, scope: Scope, frame: Frame): void {
    for (let i = 0; i < redirects.length; i++) {
      const redirect = redirects[i]!;
      if (redirect.type !== 'heredoc_redirect') continue;
      const description = describeRedirect(redirect);
      if (description.kind !== 'heredoc') continue;
      if (description.pipeline) this.walkPipeline(description.pipeline.children, scope, frame, [], true);
      const continuation = description.continuation;
      if (continuation?.operator === '||') this.walkOrBranch(continuation.right, start, scope, frame, []);
      else if (continuation) this.walkStatement(continuation.right, scope, frame, []);
    }
  }
}
