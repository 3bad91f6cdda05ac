import { EdgesyncError } from '../errors.js';

/**
 * Behaviours the service family does not document, each with the answers
 * it plausibly gives. The emulator serves one answer of each (the first is
 * its default) so that edgesync, and `edgesync doctor`, can be run against
 * every one. Names are part of the CLI (`--variant unset-module=null-ok`).
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
} as const;

export type EmulatorVariantName = keyof typeof EMULATOR_VARIANTS;

/** One answer per undocumented behaviour. */
export type EmulatorVariants = {
  readonly [Name in EmulatorVariantName]: (typeof EMULATOR_VARIANTS)[Name][number];
};

/** What the emulator answers when told nothing: the first value of each. */
export const DEFAULT_VARIANTS: EmulatorVariants = {
  'unset-module': 'not-found',
  'empty-list': 'clears',
};

function isVariantName(name: string): name is EmulatorVariantName {
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
