import { acceptFamilyBodies } from './body-envelopes.js';
import type { RouteDefinition } from './handler.js';
import { CERTIFICATE_AUTHORITY_ROUTES } from './handlers/certificate-authorities.js';
import { HTTPS_EDGE_ROUTE_ROUTES } from './handlers/https-edge-routes.js';
import { HTTPS_EDGE_ROUTES } from './handlers/https-edges.js';
import { IP_POLICY_RULE_ROUTES } from './handlers/ip-policy-rules.js';
import { REFERENCED_RESOURCE_ROUTES } from './handlers/referenced-resources.js';
import { RESERVED_ADDR_ROUTES } from './handlers/reserved-addrs.js';
import { TCP_TLS_EDGE_ROUTES } from './handlers/tcp-tls-edges.js';

/** Every endpoint the emulator serves: the spec's and the emulator-only ones. */
export const EMULATOR_ROUTES: readonly RouteDefinition[] = acceptFamilyBodies([
  ...IP_POLICY_RULE_ROUTES,
  ...RESERVED_ADDR_ROUTES,
  ...CERTIFICATE_AUTHORITY_ROUTES,
  ...HTTPS_EDGE_ROUTES,
  ...HTTPS_EDGE_ROUTE_ROUTES,
  ...TCP_TLS_EDGE_ROUTES,
  ...REFERENCED_RESOURCE_ROUTES,
]);
