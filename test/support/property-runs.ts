/**
 * How many cases each fast-check property runs, for the whole suite at once:
 * `EDGESYNC_PROPERTY_SIZE` is `small` (the default: `npm test`, where every
 * property still runs, in a minute's budget), `large` (`npm run
 * test:reliability` sets it and runs every file that sizes a property here),
 * or a count N that every property runs (to dig at one: `EDGESYNC_PROPERTY_SIZE=5000
 * npx vitest run FILE`). This is the one place it is read.
 */
export type PropertySize = 'small' | 'large' | number;

/** The two sizes of one property, in cases. */
export interface PropertyRuns {
  /** In `npm test`: enough to catch the common counter-example on every run. */
  readonly small: number;
  /** In `npm run test:reliability`: the long search. */
  readonly large: number;
}

export const PROPERTY_SIZE_VARIABLE = 'EDGESYNC_PROPERTY_SIZE';

/** The size `setting` (the variable's value) names; anything else is refused, naming what it found. */
export function parsePropertySize(setting: string | undefined): PropertySize {
  if (setting === undefined || setting === '' || setting === 'small') return 'small';
  if (setting === 'large') return 'large';
  if (/^[1-9][0-9]*$/.test(setting)) return Number(setting);
  throw new Error(
    `${PROPERTY_SIZE_VARIABLE}: expected small, large or a count of cases (found ${JSON.stringify(setting)})`,
  );
}

export const PROPERTY_SIZE: PropertySize = parsePropertySize(process.env[PROPERTY_SIZE_VARIABLE]);

/** The `numRuns` of a property at the suite's size. */
export function propertyRuns(runs: PropertyRuns): number {
  if (typeof PROPERTY_SIZE === 'number') return PROPERTY_SIZE;
  return runs[PROPERTY_SIZE];
}

export const PROPERTY_SEED_VARIABLE = 'EDGESYNC_PROPERTY_SEED';

/**
 * The seed of a property that names one (so that a failure in CI repeats):
 * `fixed`, unless `EDGESYNC_PROPERTY_SEED` gives another number, or `random`
 * for a new search (fast-check prints the seed of a failure; keep the case it
 * found as a named test).
 */
export function propertySeed(fixed: number): number | undefined {
  const setting = process.env[PROPERTY_SEED_VARIABLE];
  if (setting === undefined || setting === '') return fixed;
  if (setting === 'random') return undefined;
  if (/^-?[0-9]+$/.test(setting)) return Number(setting);
  throw new Error(
    `${PROPERTY_SEED_VARIABLE}: expected a number or random (found ${JSON.stringify(setting)})`,
  );
}
