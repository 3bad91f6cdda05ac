/**
 * What the emulator stores of every record; each kind's records add their
 * own fields (src/kinds/<kind>/emulator*.ts). References are kept as IDs and rendered as Refs
 * `{ id, uri }` on the way out, so stored data never depends on the URL the
 * server happens to listen on (a data file survives a restart on a new port).
 */
export interface BaseRecord {
  readonly id: string;
  readonly created_at: string;
  /** Creation order across the whole store; lists sort on it, newest first. */
  readonly seq: number;
  description?: string;
  metadata?: string;
}
