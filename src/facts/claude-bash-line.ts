/**
 * What Claude Code's Bash tool (claude-agent-acp 0.23.1, bundled cli.js) hands to `eval` instead of
 * the command as written. Redirections to `nul` become /dev/null; and a pipeline with no heredoc, no
 * input redirection, no backquote, `$(`, `$name`, loop or conditional keyword is parsed with the
 * shell-quote library and joined again, `< /dev/null` put before its first `|`: words re-quoted,
 * operators as they were, comments dropped — and a word holding an unquoted (or escaped) `*` or `?`
 * emitted raw, its quotes and escapes gone. `echo x";cp .env leaked.txt;"* | cat` so runs
 * `cp .env leaked.txt` (seen with the real agent). A model of that behaviour: its tokenising expressions
 * are those of shell-quote 1.8 (MIT License, Copyright (c) 2013 James Halliday), because that tokenising
 * is what is modelled; test/interop/claude-bash-line.test.ts holds it equal to the bundled code.
 */

/** The line Claude Code evaluates for `line`, when it is not `line` itself. */
export function claudeBashLine(line: string): string | undefined {
  const p = line.replace(/(\d?&?>+\s*)[Nn][Uu][Ll](?=\s|$|[|&;)\n])/g, '$1/dev/null');
  const rewritten = p.includes('|') && !hasHeredoc(p) && !hasInputRedirection(p) ? pipelineRewrite(p) : undefined;
  const result = rewritten ?? p;
  return result === line ? undefined : result;
}

function hasHeredoc(a: string): boolean {
  if (/\d\s*<<\s*\d/.test(a) || /\[\[\s*\d+\s*<<\s*\d+\s*\]\]/.test(a) || /\$\(\(.*<<.*\)\)/.test(a)) return false;
  return /<<-?\s*(?:(['"]?)(\w+)\1|\\(\w+))/.test(a);
}

function hasInputRedirection(a: string): boolean {
  return /(?:^|[\s;&|])<(?![<(])\s*\S+/.test(a);
}

/** Undefined where Claude Code evaluates the line itself (its `'…' < /dev/null` fallback). */
function pipelineRewrite(a: string): string | undefined {
  if (a.includes('`') || a.includes('$(') || /\$[A-Za-z_{]/.test(a) || /\b(for|while|until|if|case|select)\s/.test(a)) return undefined;
  const joined = a.replace(/\\+\n/g, (run) => (run.length - 1) % 2 === 1 ? '\\'.repeat(run.length - 2) : run);
  if (joined.includes('\n')) return undefined;
  let tokens: Token[];
  try {
    tokens = shellQuoteParse(joined);
  } catch {
    return undefined;
  }
  const pipe = tokens.findIndex((t) => isOp(t, '|'));
  if (pipe <= 0) return undefined;
  return [...rejoin(tokens, 0, pipe), '< /dev/null', ...rejoin(tokens, pipe, tokens.length)].join(' ');
}

type Token = string | { readonly op: string; readonly pattern?: string } | { readonly comment: string };

function isOp(t: Token | undefined, op?: string): t is { readonly op: string; readonly pattern?: string } {
  return typeof t === 'object' && 'op' in t && (op === undefined || t.op === op);
}

function rejoin(tokens: readonly Token[], from: number, to: number): string[] {
  const out: string[] = [];
  let commandSeen = false;
  for (let i = from; i < to; i++) {
    const t = tokens[i]!;
    if (typeof t === 'string' && /^[012]$/.test(t) && i + 2 < to && isOp(tokens[i + 1])) {
      const op = (tokens[i + 1] as { op: string }).op;
      const target = tokens[i + 2];
      if (op === '>&' && typeof target === 'string' && /^[012]$/.test(target)) { out.push(`${t}>&${target}`); i += 2; continue; }
      if (op === '>' && target === '/dev/null') { out.push(`${t}>/dev/null`); i += 2; continue; }
      if (op === '>' && typeof target === 'string' && target.startsWith('&') && /^[012]$/.test(target.slice(1))) { out.push(`${t}>&${target.slice(1)}`); i += 2; continue; }
    }
    if (typeof t === 'string') {
      if (!commandSeen && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
        const eq = t.indexOf('=');
        out.push(`${t.slice(0, eq)}=${shellQuote(t.slice(eq + 1))}`);
      } else {
        commandSeen = true;
        out.push(shellQuote(t));
      }
    } else if (isOp(t)) {
      if (t.op === 'glob' && t.pattern !== undefined) {
        out.push(t.pattern);
      } else {
        out.push(t.op);
        if (t.op === '&&' || t.op === '||' || t.op === ';') commandSeen = false;
      }
    }
  }
  return out;
}

/** shell-quote's `quote` of one string. */
function shellQuote(s: string): string {
  if (s === '') return "''";
  if (/["\s\\]/.test(s) && !/'/.test(s)) return `'${s.replace(/(['])/g, '\\$1')}'`;
  if (/["'\s]/.test(s)) return `"${s.replace(/(["\\$`!])/g, '\\$1')}"`;
  return s.replace(/([A-Za-z]:)?([#!"$&'()*,:;<=>?@[\\\]^`{|}])/g, '$1\\$2');
}

const CONTROL = `(?:${['\\|\\|', '\\&\\&', ';;', '\\|\\&', '\\<\\(', '\\<\\<\\<', '>>', '>\\&', '<\\&', '[&;()|<>]'].join('|')})`;
const CONTROL_RE = new RegExp(`^${CONTROL}$`);
const META = '|&;()<> \\t';
const BAREWORD = `(\\\\['"${META}]|[^\\s'"${META}])+`;
const CHUNKER = `(${CONTROL})|(${BAREWORD}|"((\\\\"|[^"])*?)"|'((\\\\'|[^'])*?)')+`;

/** shell-quote's `parse` without an environment (every `$name` it meets is empty). */
function shellQuoteParse(s: string): Token[] {
  const out: Token[] = [];
  const chunker = new RegExp(CHUNKER, 'g');
  let commented = false;
  for (let m = chunker.exec(s); m !== null; m = chunker.exec(s)) {
    if (chunker.lastIndex === m.index) chunker.lastIndex += 1;
    const chunk = m[0];
    if (!chunk || commented) continue;
    if (CONTROL_RE.test(chunk)) { out.push({ op: chunk }); continue; }
    const parsed = parseChunk(chunk, s, m.index);
    if (parsed.comment) commented = true;
    out.push(...parsed.tokens);
  }
  return out;
}

function parseChunk(s: string, whole: string, at: number): { tokens: Token[]; comment: boolean } {
  let quote: string | false = false;
  let escaped = false;
  let text = '';
  let glob = false;
  for (let i = 0; i < s.length; i++) {
    let c = s.charAt(i);
    glob ||= !quote && (c === '*' || c === '?');
    if (escaped) {
      text += c;
      escaped = false;
    } else if (quote) {
      if (c === quote) quote = false;
      else if (quote === "'") text += c;
      else if (c === '\\') {
        i += 1;
        c = s.charAt(i);
        text += c === '"' || c === '\\' || c === '$' ? c : `\\${c}`;
      } else if (c === '$') {
        const v = variable(s, i);
        text += v.value;
        i = v.end;
      } else text += c;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (CONTROL_RE.test(c)) {
      return { tokens: [{ op: s }], comment: false };
    } else if (c === '#') {
      const comment = { comment: whole.slice(at + i + 1) };
      return { tokens: text.length > 0 ? [text, comment] : [comment], comment: true };
    } else if (c === '\\') {
      escaped = true;
    } else if (c === '$') {
      const v = variable(s, i);
      text += v.value;
      i = v.end;
    } else text += c;
  }
  return { tokens: [glob ? { op: 'glob', pattern: text } : text], comment: false };
}

/** A `$…` at `i`: its value without an environment ('' for a name, '$' alone), and where it ends. */
function variable(s: string, i: number): { value: string; end: number } {
  let at = i + 1;
  const c = s.charAt(at);
  let name: string;
  if (c === '{') {
    at += 1;
    if (s.charAt(at) === '}') throw new Error(`Bad substitution: ${s.slice(at - 2, at + 1)}`);
    const end = s.indexOf('}', at);
    if (end < 0) throw new Error(`Bad substitution: ${s.slice(at)}`);
    name = s.slice(at, end);
    at = end;
  } else if (/[*@#?$!_-]/.test(c)) {
    name = c;
    at += 1;
  } else {
    const rest = s.slice(at);
    const stop = rest.match(/[^\w\d_]/);
    if (!stop) { name = rest; at = s.length; } else { name = rest.slice(0, stop.index); at += stop.index! - 1; }
  }
  return { value: name !== '' ? '' : '$', end: at };
}
