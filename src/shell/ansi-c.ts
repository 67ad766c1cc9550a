/** Decoding of bash `$'…'` (ANSI-C quoted) strings, so `$'\x63url'` is seen as `curl`. */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/**
 * `body` is the text between `$'` and the closing `'`. Bash keeps the decoded string as a C string:
 * it ends at the first NUL (`\0`, `\x00`, `\u0000`, `\c@`, `\400` …), so `rm -rf $'/\0x'` runs `rm -rf /`.
 */
export function decodeAnsiC(body: string): string {
  const decoded = decodeEscapes(body);
  const nul = decoded.indexOf('\0');
  return nul < 0 ? decoded : decoded.slice(0, nul);
}

function decodeEscapes(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\' || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const next = body[i + 1]!;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
      i += 1;
      continue;
    }
    const numeric = decodeNumeric(body, i + 1);
    if (numeric) {
      out += numeric.text;
      i = numeric.end - 1;
      continue;
    }
    if (next === 'c' && i + 2 < body.length) {
      out += String.fromCharCode(body.charCodeAt(i + 2) & 0x1f); // control character
      i += 2;
      continue;
    }
    out += ch + next; // unknown escape: kept as written
    i += 1;
  }
  return out;
}

const NUMERIC_FORMS: readonly { readonly lead: string; readonly digits: RegExp; readonly base: number }[] = [
  { lead: 'x', digits: /^[0-9a-fA-F]{1,2}/, base: 16 },
  { lead: 'u', digits: /^[0-9a-fA-F]{1,4}/, base: 16 },
  { lead: 'U', digits: /^[0-9a-fA-F]{1,8}/, base: 16 },
];

function decodeNumeric(body: string, at: number): { text: string; end: number } | undefined {
  const octal = /^[0-7]{1,3}/.exec(body.slice(at));
  if (octal) return { text: String.fromCharCode(parseInt(octal[0], 8) & 0xff), end: at + octal[0].length };
  for (const form of NUMERIC_FORMS) {
    if (body[at] !== form.lead) continue;
    const digits = form.digits.exec(body.slice(at + 1));
    if (!digits) return undefined;
    const codePoint = parseInt(digits[0], form.base);
    const text = codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : '\uFFFD';
    return { text, end: at + 1 + digits[0].length };
  }
  return undefined;
}
