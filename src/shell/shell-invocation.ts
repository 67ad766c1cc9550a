/**
 * `bash -c SCRIPT`, `sh -lc SCRIPT`, `zsh -l -c SCRIPT`, `eval …`:
 * commands whose argument is itself shell code. The caller re-analyses that code.
 */
import type { Word } from './words.js';

const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash']);

export function isShell(program: string): boolean {
  return SHELLS.has(program);
}

export type ShellInvocation =
  /** The code is this word (dynamic words cannot be analysed). */
  | { readonly kind: 'script'; readonly script: Word }
  /** Runs a script file: an ordinary command for the policy (`bash build.sh`). */
  | { readonly kind: 'file' }
  /** Reads commands from standard input (`bash`, `sh -s`, `curl … | sh`). */
  | { readonly kind: 'stdin' }
  | { readonly kind: 'unresolvable'; readonly reason: string };

/** Options of bash/sh/zsh that take the next word as their value. */
const VALUED_LONG = new Set(['--rcfile', '--init-file']);

export function parseShellInvocation(argv: readonly Word[]): ShellInvocation {
  const program = argv[0]?.text ?? 'sh';
  let readsCommandString = false;
  let readsStdin = false;
  let i = 1;
  for (; i < argv.length; i++) {
    const word = argv[i]!;
    const text = word.text;
    if (word.dynamic) return { kind: 'unresolvable', reason: `${program} with an option known only at run time: ${text}` };
    if (text === '--' || text === '-') {
      i++;
      break;
    }
    if (text.startsWith('--')) {
      if (VALUED_LONG.has(text)) i++;
      if (text === '--command') readsCommandString = true; // zsh/su style; harmless for bash
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(text)) break;
    for (const letter of text.slice(1)) {
      if (letter === 'c') readsCommandString = true;
      else if (letter === 's') readsStdin = true;
      else if (letter === 'o' || letter === 'O') i++; // -o pipefail, -O extglob: value in the next word
    }
  }
  if (readsCommandString) {
    const script = argv[i];
    return script ? { kind: 'script', script } : { kind: 'unresolvable', reason: `${program} -c without a command string` };
  }
  if (readsStdin || i >= argv.length) return { kind: 'stdin' };
  return { kind: 'file' };
}

/** Joins words the way `eval` and `watch` do before running them as shell code. */
export function joinAsScript(words: readonly Word[]): Word {
  return {
    text: words.map((word) => word.text).join(' '),
    dynamic: words.some((word) => word.dynamic),
    glob: false,
    tildeUnresolved: false,
    history: false,
  };
}
