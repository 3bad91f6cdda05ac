import type { HandlerEnv } from '../../emulator/handler.js';
import type { CollectionName } from '../../emulator/records.js';
import { EMULATOR_ID_PREFIXES, type EmulatorIdKind } from '../../emulator/resource-id.js';
import { ServiceError } from '../../emulator/service-error.js';

/** Where each referencable collection lives, for Refs and reference checks. */
export const REFERENCE_TARGETS = {
  ip_policies: { idKind: 'ip_policy', path: '/ip_policies' },
  endpoint_configurations: { idKind: 'endpoint_configuration', path: '/endpoint_configurations' },
  certificate_authorities: { idKind: 'certificate_authority', path: '/certificate_authorities' },
} as const satisfies Partial<Record<CollectionName, { idKind: EmulatorIdKind; path: string }>>;

export type ReferenceTarget = keyof typeof REFERENCE_TARGETS;

export interface Ref {
  readonly id: string;
  readonly uri: string;
}

export function refTo(env: HandlerEnv, target: ReferenceTarget, id: string): Ref {
  return { id, uri: `${env.baseUrl}${REFERENCE_TARGETS[target].path}/${id}` };
}

/** 400 `reference_not_found` unless `id` has the target's prefix and exists. */
export function checkReference(env: HandlerEnv, target: ReferenceTarget, id: string, field: string): void {
  const prefix = EMULATOR_ID_PREFIXES[REFERENCE_TARGETS[target].idKind];
  if (!id.startsWith(prefix)) {
    throw new ServiceError(
      400,
      'reference_not_found',
      `${field}: "${id}" is not an ID starting with ${prefix}`,
      field,
    );
  }
  if (!env.store.has(target, id)) {
    throw new ServiceError(400, 'reference_not_found', `${field}: ${id} does not exist`, field);
  }
}

export function checkReferences(
  env: HandlerEnv,
  target: ReferenceTarget,
  ids: readonly string[],
  field: string,
): void {
  for (const id of ids) checkReference(env, target, id, field);
}
