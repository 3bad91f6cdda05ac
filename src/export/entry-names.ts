/** One live object to name, of one kind. */
export interface NamingCandidate {
  readonly id: string;
  /** The ownership marker's name, when the object is ours: always kept. */
  readonly markerName?: string;
  /** Texts a name may be derived from, best first (description, then metadata `name`). */
  readonly hints: readonly (string | undefined)[];
}

/** What the manifest schema accepts as an entry name. */
export type NameCheck = (name: string) => boolean;

const MAX_NAME_LENGTH = 64;

/**
 * A check from the schema's `definitions.name.pattern` plus the loader's rule
 * that names may not look like IDs: may not start with one of `idPrefixes`
 * (those the registry's kinds know, idPrefixTitles).
 */
export function nameCheckFrom(pattern: string, idPrefixes: Iterable<string>): NameCheck {
  const regex = new RegExp(pattern, 'u');
  const prefixes = [...idPrefixes];
  return (name) => regex.test(name) && !prefixes.some((prefix) => name.startsWith(prefix));
}

/** `Office VPN (egress)` → `office-vpn-egress`; may return '' when nothing usable is left. */
export function slugify(text: string): string {
  const ascii = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const slug = ascii
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/([._-])[._-]+/g, '$1')
    .replace(/^[^a-z0-9]+/, '');
  return slug.slice(0, MAX_NAME_LENGTH).replace(/[^a-z0-9]+$/, '');
}

/**
 * Entry names for the objects of one kind, by ID. Marker names are kept (the
 * planner matches owned objects by them); other objects get the slug of
 * their first hint that is valid and unique among the objects still
 * unnamed, else one made from their ID. The result depends only on the set
 * of objects, never on their order, so the same account names the same way
 * on every export.
 */
export function assignEntryNames(
  candidates: readonly NamingCandidate[],
  isValidName: NameCheck,
): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const sorted = [...candidates].sort((a, b) => compareStrings(a.id, b.id));
  for (const candidate of sorted) {
    if (candidate.markerName === undefined) continue;
    names.set(candidate.id, candidate.markerName);
    taken.add(candidate.markerName);
  }
  const hintCount = Math.max(0, ...sorted.map((candidate) => candidate.hints.length));
  for (let level = 0; level < hintCount; level += 1) {
    const unnamed = sorted.filter((candidate) => !names.has(candidate.id));
    const slugs = new Map(unnamed.map((candidate) => [candidate.id, slugOfHint(candidate.hints[level])]));
    const counts = new Map<string, number>();
    for (const slug of slugs.values()) if (slug !== '') counts.set(slug, (counts.get(slug) ?? 0) + 1);
    for (const candidate of unnamed) {
      const slug = slugs.get(candidate.id) ?? '';
      if (slug === '' || counts.get(slug) !== 1 || taken.has(slug) || !isValidName(slug)) continue;
      names.set(candidate.id, slug);
      taken.add(slug);
    }
  }
  for (const candidate of sorted) {
    if (names.has(candidate.id)) continue;
    const base = idName(candidate.id);
    let name = base;
    for (let suffix = 2; taken.has(name) || !isValidName(name); suffix += 1) {
      name = `${base.slice(0, MAX_NAME_LENGTH - String(suffix).length - 1)}-${suffix}`;
    }
    names.set(candidate.id, name);
    taken.add(name);
  }
  return names;
}

/** `ipr_2a8BxYz` → `ipr-2a8bxyz`: lower case, and a dash so it cannot be read as an ID. */
function idName(id: string): string {
  return slugify(id.replace('_', '-')) || 'entry';
}

function slugOfHint(hint: string | undefined): string {
  return hint === undefined ? '' : slugify(hint);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
