import type { NamedIds } from './named-ids.js';

/**
 * What `edgesync doctor` (src/doctor/) checks of one kind against the live
 * service, supplied by the kind's folder so that the doctor never names a
 * kind: where it is listed, and the throwaway object `--probe-writes` makes.
 */
export interface KindProbe {
  /** Where the kind is listed (`GET {path}`, items under `key`); absent when the API cannot list it. */
  readonly list?: { readonly path: string; readonly key: string };
  /** The throwaway object `--probe-writes` creates, reads, updates and deletes; absent when edgesync creates none. */
  readonly object?: ProbeObject;
  /**
   * Module values `--probe-edge` puts on an edge of this kind, one per
   * module; `ids` holds the probe's own objects by ID prefix (its IP policy,
   * its CA), which the values may name.
   */
  readonly moduleValues?: (ids: ProbeIds) => Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** IDs of the objects a probe run made so far, by ID prefix (`ipp_`, `ca_`). */
export type ProbeIds = ReadonlyMap<string, string>;

export interface ProbeObject {
  /** Resources it needs that no kind creates (a rule's IP policy): made first (`POST {path}`), removed last. */
  readonly needs?: readonly NamedIds[];
  /**
   * The spec to create, in manifest shape with references as IDs; `word` is
   * a short random word of the run, for values that must be unique.
   */
  spec(word: string, ids: ProbeIds): Readonly<Record<string, unknown>>;
  /** The fields an update changes, with their new values (manifest shape). */
  update(word: string): Readonly<Record<string, unknown>>;
  /**
   * Optional: a list field a PATCH may empty. Whether the service clears it
   * or ignores the empty list is not documented; edgesync needs it cleared.
   */
  readonly emptiedList?: string;
  /**
   * Optional: modules the object has, read and deleted while unset: whether
   * the service answers 404, or 200/204 with nothing, is not documented.
   */
  readonly unsetModules?: readonly string[];
}
