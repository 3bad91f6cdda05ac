import { visibleText } from '../../visible-text.js';

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * `text` as HTML text or a quoted attribute's value: the five characters
 * markup is made of as entities, and control and bidirectional characters as
 * visible escapes (`visibleText`), so a name, file or service message on the
 * page reads as it is stored and can open no tag, attribute or script.
 */
export function htmlText(text: string): string {
  return visibleText(text).replace(/[&<>"']/g, (character) => ENTITIES[character] as string);
}

/**
 * An identifier (a name, an ID, an address, a `file:line`) as HTML that a
 * line may break only after its punctuation (`.`, `_`, `-`, `/`, `:`),
 * never inside a word: `<wbr>` marks each place. The page's style breaks
 * nothing else, so a long identifier wraps there or its table scrolls.
 */
export function identifierHtml(text: string): string {
  return htmlText(text).replace(/([._/:-])(?=[^\s])/g, '$1<wbr>');
}
