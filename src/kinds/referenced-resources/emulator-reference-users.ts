import type { HandlerEnv } from '../../emulator/handler.js';
import { ServiceError } from '../../emulator/service-error.js';
import type { ReferenceTarget } from './emulator-references.js';

function routeModuleIds(
  modules: Readonly<Record<string, unknown>>,
  module: string,
  key: string,
): readonly unknown[] {
  const value = modules[module];
  if (typeof value !== 'object' || value === null) return [];
  const ids = (value as Record<string, unknown>)[key];
  return Array.isArray(ids) ? ids : [];
}

/** IDs of the resources that reference `id`, for the delete-while-referenced check. */
export function referenceUsers(env: HandlerEnv, target: ReferenceTarget, id: string): string[] {
  const { store } = env;
  const users: string[] = [];
  if (target === 'ip_policies') {
    for (const rule of store.list('ip_policy_rules')) if (rule.ip_policy_id === id) users.push(rule.id);
    for (const edge of store.list('tcp_edges'))
      if (edge.ip_restriction?.ip_policy_ids.includes(id)) users.push(edge.id);
    for (const route of store.list('https_edge_routes')) {
      if (routeModuleIds(route.modules, 'ip_restriction', 'ip_policy_ids').includes(id)) users.push(route.id);
    }
  }
  if (target === 'certificate_authorities') {
    for (const edge of [...store.list('https_edges'), ...store.list('tls_edges')]) {
      if (edge.mutual_tls?.certificate_authority_ids.includes(id)) users.push(edge.id);
    }
  }
  if (target === 'endpoint_configurations') {
    for (const addr of store.list('reserved_addrs'))
      if (addr.endpoint_configuration_id === id) users.push(addr.id);
  }
  return users;
}

/** Deleting a resource that others still reference answers 400 `conflict` and deletes nothing. */
export function checkNotReferenced(env: HandlerEnv, target: ReferenceTarget, id: string): void {
  const users = referenceUsers(env, target, id);
  if (users.length > 0) {
    throw new ServiceError(400, 'conflict', `${id} is still referenced by ${users.join(', ')}`, 'id');
  }
}

/**
 * Deletes a resource others may reference, as the family does. An IP policy
 * may go while referenced: its rules go with it, and the modules naming it
 * keep the reference and behave as if it had no rules. A referenced CA or
 * endpoint configuration stays (400 `conflict`): a mutual TLS module whose CA
 * vanished would refuse every client, which the family does not allow.
 */
export function deleteReferenceTarget(env: HandlerEnv, target: ReferenceTarget, id: string): void {
  if (target === 'ip_policies') {
    for (const rule of env.store.list('ip_policy_rules')) {
      if (rule.ip_policy_id === id) env.store.delete('ip_policy_rules', rule.id);
    }
  } else {
    checkNotReferenced(env, target, id);
  }
  env.store.delete(target, id);
}
