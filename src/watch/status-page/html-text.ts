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
