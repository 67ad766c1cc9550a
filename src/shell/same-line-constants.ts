/**
 * Same-line constant variables: `b=+main; git push origin $b` runs `git push origin +main`, and a
 * deny rule must see that. Only what is certain is propagated:
 * - the value comes from a plain `NAME=literal` statement of the line's own top-level sequence
 *   (not in a branch, loop, subshell, function body, `&&`/`||` side, background job or prefix
 *   assignment `x=1 cmd`), and is used after it;
 * - nothing else in the whole line may set NAME: every other occurrence of NAME as a word is
 *   counted, and any occurrence other than `$NAME` / `${NAME}` (a `read NAME`, `for NAME`,
 *   `${NAME:=…}`, `NAME+=…`, a mention in `bash -c` code, even an unrelated word) keeps it dynamic.
 * - NAME is not one bash sets by itself (`REPLY` by `read`, `PWD` by `cd`, `_`, `RANDOM` …), and the
 *   line has no `$'…'` with an escape (`read $'\x62'` names `b` without writing it).
 * Word splitting and globbing of unquoted uses are decided in words.ts.
 */
import { childByField, type SyntaxNode } from './syntax.js';
import { resolveWord, type WordContext } from './words.js';

/** Variables bash sets or reads specially: a value assigned to them may not be the value read. */
const SHELL_MAINTAINED = /^(_|RANDOM|SRANDOM|SECONDS|LINENO|BASHPID|EPOCHSECONDS|EPOCHREALTIME|HISTCMD|FUNCNAME|GROUPS|DIRSTACK|PWD|OLDPWD|PPID|UID|EUID|SHLVL|OPTIND|OPTARG|OPTERR|REPLY|MAPFILE|COPROC|PIPESTATUS|COLUMNS|LINES|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE|SHELLOPTS|BASHOPTS|IFS|HISTFILE|HISTSIZE|BASH\w*|COMP_\w*|READLINE_\w*)$/;

const LITERAL_VALUE_TYPES = new Set(['word', 'string', 'raw_string', 'ansi_c_string', 'concatenation', 'number', 'simple_expansion', 'expansion']);

/** The constants of a line that assigns none (most lines): nothing to look up. */
const NO_CONSTANTS = { assign(): void {}, valueOf: (): string | undefined => undefined };

export type Constants = typeof NO_CONSTANTS | LineConstants;

/** The constants of the line whose program node is `root`. */
export function lineConstants(line: string, root: SyntaxNode): Constants {
  if (!root.children.some((child) => child.type === 'variable_assignment')) return NO_CONSTANTS;
  return /\$'[^']*\\/.test(line) ? NO_CONSTANTS : new LineConstants(line, root);
}

export class LineConstants {
  private readonly values = new Map<string, string>();
  /** Top-level assignment statements that may define a constant, and how many there are per name. */
  private readonly assignments = new Map<SyntaxNode, string>();
  private readonly counts = new Map<string, number>();
  private readonly eligible = new Map<string, boolean>();
  /** Unquoted uses split on the default IFS only if the line never mentions IFS. */
  private readonly defaultIfs: boolean;

  /** `root`: the line's own program node; `line`: its text as given. */
  constructor(private readonly line: string, root: SyntaxNode) {
    this.defaultIfs = !/(?<![A-Za-z0-9_])IFS(?![A-Za-z0-9_])/.test(line);
    root.children.forEach((child, index) => {
      if (child.type !== 'variable_assignment' || root.children[index + 1]?.type === '&') return;
      const name = constantName(child);
      if (!name) return;
      this.assignments.set(child, name);
      this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    });
  }

  /** Runs a top-level assignment statement (any other assignment node is ignored). */
  assign(node: SyntaxNode, words: WordContext): void {
    const name = this.assignments.get(node);
    if (!name) return;
    const valueNode = childByField(node, 'value');
    const value = valueNode && resolveWord(valueNode, words);
    const literal = !value || (!value.dynamic && !value.tildeUnresolved && !value.history && !valueNode.text.includes('~'));
    if (literal) this.values.set(name, value?.text ?? '');
    else this.values.delete(name);
  }

  /** The value of `name` if it is a constant here; `quoted`: the use is inside double quotes. */
  valueOf(name: string, quoted: boolean): string | undefined {
    const value = this.values.get(name);
    if (value === undefined || (!quoted && !this.defaultIfs)) return undefined;
    let eligible = this.eligible.get(name);
    if (eligible === undefined) {
      eligible = otherOccurrences(this.line, name) === this.counts.get(name);
      this.eligible.set(name, eligible);
    }
    return eligible ? value : undefined;
  }
}

/** NAME of a `NAME=value` assignment whose value is a plain word (not `+=`, `a[i]=`, `=(…)`). */
function constantName(node: SyntaxNode): string | undefined {
  const [name, operator, value, ...rest] = node.children;
  if (name?.type !== 'variable_name' || operator?.type !== '=' || rest.length > 0) return undefined;
  if (value && (value.field !== 'value' || !LITERAL_VALUE_TYPES.has(value.type))) return undefined;
  return SHELL_MAINTAINED.test(name.text) ? undefined : name.text;
}

/** Occurrences of NAME as a word in `line`, other than the reads `$NAME` and `${NAME}`. */
function otherOccurrences(line: string, name: string): number {
  const pattern = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`, 'g');
  let count = 0;
  for (const match of line.matchAll(pattern)) {
    const at = match.index;
    if (line[at - 1] === '$') continue;
    if (at >= 2 && line.slice(at - 2, at) === '${' && line[at + name.length] === '}') continue;
    count++;
  }
  return count;
}
