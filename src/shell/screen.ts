/**
 * Checks on the raw line before any parsing: characters that make what a human reviews differ from
 * what the shell runs, and lines too long to review.
 */

export const MAX_LINE_LENGTH = 10_000;

/**
 * Invisible, formatting and bidirectional-override characters (zero-width space/joiners, LRM/RLM,
 * LRE…RLO, isolates, BOM, soft hyphen, word joiner, invisible operators, Mongolian vowel separator,
 * Arabic letter mark, line/paragraph separators, interlinear annotations, tag characters).
 */
const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/u;

/** Characters that look like a space but are part of a word for the shell. */
const LOOKALIKE_SPACE = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;

/** C0 controls other than tab and newline (CR included: it hides text on a terminal), DEL, C1. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/u;

export function screenLine(line: string): string[] {
  const reasons: string[] = [];
  if (line.length > MAX_LINE_LENGTH) reasons.push(`line longer than ${MAX_LINE_LENGTH} characters`);
  if (INVISIBLE.test(line)) reasons.push('invisible or bidirectional control character in the line');
  if (CONTROL.test(line)) reasons.push('control character in the line');
  if (LOOKALIKE_SPACE.test(line)) reasons.push('a character that looks like a space but is not one for the shell');
  return reasons;
}

/** Anything but printable ASCII in a command name: look-alike letters (Cyrillic `с`), controls. */
export function hasSuspiciousNameCharacter(name: string): boolean {
  return /[^\x21-\x7E]/.test(name);
}
