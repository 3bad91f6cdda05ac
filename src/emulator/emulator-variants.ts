import { EdgesyncError } from '../errors.js';

/**
 * Behaviours the service family does not document, each with the answers
 * it plausibly gives. The emulator serves one answer of each (the first is
 * its default) so that edgesync, and `edgesync doctor`, can be run against
 * every one. Names are part of the CLI (`--variant unset-module=null-ok`);
 * docs/emulator.md gives, for each, the catalogue row or the silence it
 * stands for.
 */
export const EMULATOR_VARIANTS = {
  /**
   * GET or DELETE of a module that is not set on an existing edge or route:
   * `not-found` answers 404 to both; `null-ok` answers GET 200 with `null`
   * and DELETE 204.
   */
  'unset-module': ['not-found', 'null-ok'],
  /**
   * An empty list in a PATCH (`hostports: []`): `clears` empties the list;
   * `ignored` treats it as not sent (the family's clients leave out empty
   * lists, so a service may read one as absent).
   */
  'empty-list': ['clears', 'ignored'],
  /**
   * The body of a 404: `coded` carries an `error_code` like every other
   * error; `bare` carries none, as the family's Go client's fixture for a
   * missing object shows.
   */
  'not-found-body': ['coded', 'bare'],
  /**
   * A description that was never set: `absent` leaves the field out of the
   * answer; `empty` answers it as "".
   */
  'unset-description': ['absent', 'empty'],
  /** `region: ""` in a reserved address create: `refused` (an invalid region) or `default` (us). */
  'empty-region': ['refused', 'default'],
  /**
   * A `before_id` naming no object the list ever held: `held` refuses it;
   * `any` reads any ID of the list's kind as a position in its order (IDs
   * sort by creation time), so the page holds what sorts before it.
   */
  'before-id': ['held', 'any'],
  /** Which of the family's two numbers a bad `limit` gets: 233 or 244. */
  'page-size-error': ['233', '244'],
  /** Which of the family's two numbers a malformed rule `ip_policy_id` gets: 1414 or 229. */
  'policy-id-error': ['1414', '229'],
  /**
   * Which pair of the family's twin numbers a certificate authority's long
   * description and metadata get: 1914 and 1915, or 1916 and 1917.
   */
  'ca-length-errors': ['1914', '1916'],
  /**
   * A route's `match`: `path` takes only a path (a leading slash), as the
   * family's error 7131 says; `any` also takes a hostname or a hostname
   * plus path, as its field docs show.
   */
  'route-match': ['path', 'any'],
  /**
   * An OIDC module's `cookie_prefix`: `checked` refuses anything but
   * letters, digits and periods (the family's 7042, worded for OAuth);
   * `any` takes any string.
   */
  'openid-cookie-prefix': ['checked', 'any'],
  /** TLS termination's `min_version`: `any` of 1.0 to 1.3, or `1.2-up` (1.2 and 1.3 only). */
  'tls-min-version': ['any', '1.2-up'],
} as const;

export type EmulatorVariantName = keyof typeof EMULATOR_VARIANTS;

/** One answer per undocumented behaviour. */
export type EmulatorVariants = {
  readonly [Name in EmulatorVariantName]: (typeof EMULATOR_VARIANTS)[Name][number];
};

/** What the emulator answers when told nothing: the first value of each. */
export const DEFAULT_VARIANTS: EmulatorVariants = Object.fromEntries(
  Object.entries(EMULATOR_VARIANTS).map(([name, values]) => [name, values[0]]),
) as unknown as EmulatorVariants;

export function isVariantName(name: string): name is EmulatorVariantName {
  return Object.hasOwn(EMULATOR_VARIANTS, name);
}

/** Every variant named, the others at their default; a bad name or value throws, showing it. */
export function resolveVariants(given: Partial<Record<string, string>> = {}): EmulatorVariants {
  const resolved: Record<string, string> = { ...DEFAULT_VARIANTS };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!isVariantName(name)) {
      throw new EdgesyncError(
        'invalid_emulator_option',
        `variant "${name}" is not one of ${Object.keys(EMULATOR_VARIANTS).join(', ')}`,
      );
    }
    const values: readonly string[] = EMULATOR_VARIANTS[name];
    if (!values.includes(value)) {
      throw new EdgesyncError(
        'invalid_emulator_option',
        `variant ${name} must be ${values.join(' or ')} (found "${value}")`,
      );
    }
    resolved[name] = value;
  }
  return resolved as unknown as EmulatorVariants;
}

/** `unset-module=null-ok` (the CLI's `--variant`) as a name and a value. */
export function parseVariant(text: string): { readonly name: string; readonly value: string } {
  const equals = text.indexOf('=');
  if (equals <= 0 || equals === text.length - 1) {
    throw new EdgesyncError(
      'invalid_emulator_option',
      `--variant takes NAME=VALUE, e.g. unset-module=null-ok (found "${text}")`,
    );
  }
  return { name: text.slice(0, equals), value: text.slice(equals + 1) };
}
