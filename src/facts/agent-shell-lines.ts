/**
 * The lines a tool call's command may run as. Agents do not all hand the model's command to bash as
 * written: qwen-code runs `command.trim()`, Claude Code re-serialises pipelines (claude-bash-line.ts),
 * and gemini-cli (0.61.0) runs `stripShellWrapper(command)`,
 * which cuts a leading `bash -c` and then, when the rest starts and ends with a quote, just its first
 * and last characters — `bash -c 'echo x' '; cat .env'` runs `echo x` as written, but gemini runs
 * `echo x' '; cat .env`. Every reading is judged: deny rules see what any of them does, allow rules
 * must allow them all.
 */
import { claudeBashLine } from './claude-bash-line.js';

export interface LineReadings {
  /** The line as written first, then each other reading (no duplicates). */
  readonly lines: readonly string[];
  /** Why a reading cannot be known exactly (empty when every one is). */
  readonly unresolvable: readonly string[];
}

/** gemini-cli's `stripShellWrapper` pattern, verbatim. */
const GEMINI_WRAPPER = /^\s*(?:(?:(?:\S+\/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+\/c|powershell(?:\.exe)?\s+(?:-NoProfile\s+)?-Command|pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+/i;

/**
 * gemini-cli reads a double-quoted rest with the shell-quote library: without `"`, `\`, `$` or a
 * backquote inside, that is the text between the quotes; with them, its reading is not modelled here.
 */
const SHELL_QUOTE_SPECIAL = /["\\$`]/;

const NONE: readonly string[] = Object.freeze([]);

/** Which agents may run the line (each is true when it is that agent, or the agent is not known). */
export interface Runners {
  readonly gemini: boolean;
  readonly claude: boolean;
}

export function lineReadings(line: string, runners: Runners): LineReadings {
  const trimmed = line.trim();
  const claude = runners.claude ? claudeBashLine(line) : undefined;
  if (!runners.gemini) {
    if (trimmed === line && claude === undefined) return { lines: [line], unresolvable: NONE };
    return { lines: [...new Set([line, trimmed, ...(claude !== undefined ? [claude] : [])])], unresolvable: NONE };
  }
  const stripped = geminiStripped(line);
  const lines = [...new Set([line, trimmed, stripped.line, ...(claude !== undefined ? [claude] : [])])];
  return { lines, unresolvable: stripped.exact ? NONE : [`gemini-cli unwraps \`${line}\` in a way not modelled exactly (a double-quoted script with quotes, backslashes or \`$\`)`] };
}

/** What gemini-cli's `stripShellWrapper` makes of a command; `exact: false` when only approximated. */
export function geminiStripped(command: string): { readonly line: string; readonly exact: boolean } {
  const match = GEMINI_WRAPPER.exec(command);
  if (!match) return { line: command.trim(), exact: true };
  const rest = command.substring(match[0].length).trim();
  const quoted = rest.length >= 2 && ((rest.startsWith('"') && rest.endsWith('"')) || (rest.startsWith("'") && rest.endsWith("'")));
  if (!quoted) return { line: rest, exact: true };
  const inner = rest.substring(1, rest.length - 1);
  const posixDoubleQuoted = match[0].trim().endsWith('-c') && rest.startsWith('"');
  return { line: inner, exact: !posixDoubleQuoted || !SHELL_QUOTE_SPECIAL.test(inner) };
}
