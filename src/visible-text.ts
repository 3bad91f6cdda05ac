/**
 * The one place that makes user-supplied text safe to print. Names,
 * descriptions, file names, service messages: any of them may hold a BEL, an
 * ESC that starts a terminal sequence, a newline that forges a second
 * `file:line:col` line, or a bidirectional override (U+202E) that makes a
 * terminal or a code review show text in another order than it is. Every
 * renderer passes such strings through here, so none of these characters
 * reaches a terminal, a log or a pull-request comment raw.
 *
 * Escaped: C0 controls (U+0000–U+001F), DEL (U+007F), C1 controls
 * (U+0080–U+009F), the bidirectional embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069), and the line and paragraph separators
 * (U+2028, U+2029), which some terminals and editors break lines at.
 */

/** Characters that may never reach output raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this module is for.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What JSON.stringify leaves raw of those: it already escapes C0. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

// The same classes, not global, to ask whether a string holds any: almost none does, and a test is
// 2-5x cheaper than a replace that finds nothing (a plan of 100,000 creates asks about a million strings).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this module is for.
const HAS_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HAS_UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(character: string): string {
  const short = SHORT[character];
  if (short !== undefined) return short;
  const code = character.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every unsafe character written as a visible escape (`\x07`,
 * `\n`, `\x1b`, `\u202e`), so it stays on one line and reads as it is
 * stored. Other text, non-Latin scripts and emoji included, is unchanged.
 */
export function visibleText(text: string): string {
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE, escapeOne) : text;
}

/** True when `text` holds nothing `visibleText` would escape. */
export function isVisibleText(text: string): boolean {
  return !HAS_UNSAFE.test(text);
}

function jsonEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `JSON.stringify` whose output holds no unsafe character raw: those that
 * JSON.stringify leaves (DEL, C1, bidirectional controls, U+2028/2029) are
 * written as `\uXXXX` escapes, so the text is safe on a terminal and parses
 * back to exactly the same data.
 */
export function visibleJson(value: unknown, indent?: number): string {
  return visibleJsonLine(JSON.stringify(value, null, indent) ?? 'null');
}

/** One serialized JSON log line (pino's output) made safe the same way; the data parses back unchanged. */
export function visibleJsonLine(line: string): string {
  return HAS_UNSAFE_IN_JSON.test(line) ? line.replace(UNSAFE_IN_JSON, jsonEscape) : line;
}

/** An SGR colour sequence, the only control sequence edgesync itself writes (coloured text output). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC that starts edgesync's own colour codes.
const OWN_COLOUR = /\u001b\[[0-9;]*m/y;

/**
 * Text that edgesync formatted for people (pino-pretty's lines), made safe
 * after the fact: every unsafe character escaped except the line breaks
 * and colour sequences the formatter wrote itself.
 */
export function visibleFormattedText(text: string): string {
  let out = '';
  let last = 0;
  UNSAFE.lastIndex = 0;
  for (let match = UNSAFE.exec(text); match !== null; match = UNSAFE.exec(text)) {
    const at = match.index;
    const character = match[0];
    if (character === '\n') continue;
    if (character === '\u001b') {
      OWN_COLOUR.lastIndex = at;
      if (OWN_COLOUR.test(text)) continue;
    }
    out += text.slice(last, at) + escapeOne(character);
    last = at + 1;
  }
  return out + text.slice(last);
}
