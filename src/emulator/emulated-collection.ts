import type { FamilyRule } from './family-rule.js';
import type { HandlerEnv, RouteDefinition } from './handler.js';
import type { BaseRecord } from './records.js';
import type { StoreCollection } from './store.js';

/**
 * One collection the emulator stores. Kinds describe theirs (src/kinds/<kind>/emulator*.ts);
 * the store, the generic routes, references and seeds work from these descriptions alone.
 */
export interface EmulatedCollection<R extends BaseRecord = BaseRecord> extends StoreCollection<R> {
  /** Prefix of its records' IDs: `ipr_`. */
  readonly idPrefix: string;
  /** Names one record in a 404, e.g. "reserved address". */
  readonly title: string;
  /** Where a record lives, `${path}/${id}`: the `uri` of a Ref to it. Absent for records under a parent. */
  readonly path?: string;
  /**
   * The family's numbers for what a request may get wrong about one of its
   * records, where the family has its own (otherwise the API-wide ones, or
   * none): an ID of its prefix but no ID's shape, an ID it does not hold, a
   * PATCH with nothing to change.
   */
  readonly refusals?: CollectionRefusals;
  /**
   * Optional: creates one record from its seed entry (the create body, its
   * fixed `id` split off), validated like a create; `path` locates the entry
   * in errors. Without it the collection is not a key of seeds.
   */
  seed?(env: HandlerEnv, body: Record<string, unknown>, id: string | undefined, path: string): void;
}

/**
 * A kind's part of the emulator: its collections and their endpoints, and
 * the parts it cannot be served without (the collections its records
 * reference). The emulator serves the parts of the registry it is given,
 * each once, however many others require it.
 */
export interface EmulatorPart {
  readonly requires?: readonly EmulatorPart[];
  readonly collections: readonly EmulatedCollection[];
  readonly routes: readonly RouteDefinition[];
  /**
   * The family's rules this part applies, each answering rows of the error
   * catalogue (docs/family-errors.md): what the catalogue's test checks
   * against the catalogue, and the emulator against each other (one word
   * per family number).
   */
  readonly errors?: readonly FamilyRule[];
}

/** EmulatedCollection.refusals. */
export interface CollectionRefusals {
  readonly malformedId?: FamilyRule;
  readonly notFound?: FamilyRule;
  readonly emptyUpdate?: FamilyRule;
}
