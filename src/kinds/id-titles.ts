import type { Kind } from './kind.js';

/** Initial letters whose English name starts with a vowel sound ("an HTTPS edge", "an IP policy"). */
const VOWEL_SOUND_INITIALS = new Set('AEFHILMNORSX');

/** "a reserved address", "an IP policy rule", "an HTTPS edge": initialisms are read letter by letter. */
export function withArticle(title: string): string {
  const firstWord = title.split(' ')[0] ?? '';
  const initialism = firstWord.length > 1 && firstWord === firstWord.toUpperCase();
  const first = firstWord.charAt(0);
  const vowelSound = initialism ? VOWEL_SOUND_INITIALS.has(first) : /^[aeiou]/i.test(first);
  return `${vowelSound ? 'an' : 'a'} ${title}`;
}

/** How messages name an ID of `kind` in a reference: its idTitle, or "a/an TITLE ID". */
export function referenceIdTitle(kind: Kind): string {
  return kind.idTitle ?? `${withArticle(kind.title)} ID`;
}

/**
 * What every ID prefix of `kinds` names ("ca_" → "a certificate authority ID"),
 * the kinds' own and those of the resources they name (Kind.namedIds),
 * longest prefix first so that `edghtsrt_` is not taken for `edghts_`.
 */
export function idPrefixTitles(kinds: readonly Kind[]): ReadonlyMap<string, string> {
  const titles = new Map<string, string>();
  for (const kind of kinds) {
    for (const { prefix, title } of kind.namedIds ?? []) {
      if (!titles.has(prefix)) titles.set(prefix, `${withArticle(title)} ID`);
    }
  }
  for (const kind of kinds) titles.set(kind.idPrefix, `${withArticle(kind.title)} ID`);
  return new Map([...titles].sort(([a], [b]) => b.length - a.length));
}

/** The known ID prefix `value` starts with, if any. */
export function idPrefixOf(value: string, titles: ReadonlyMap<string, string>): string | undefined {
  for (const prefix of titles.keys()) if (value.startsWith(prefix)) return prefix;
  return undefined;
}
