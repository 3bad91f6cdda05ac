import { CERTIFICATE_AUTHORITY_ROUTES } from '../kinds/certificate-authorities/emulator.js';
import { HTTPS_EDGE_ROUTES } from '../kinds/https-edges/emulator.js';
import { HTTPS_EDGE_ROUTE_ROUTES } from '../kinds/https-edges/emulator-edge-routes.js';
import { IP_POLICY_RULE_ROUTES } from '../kinds/ip-policy-rules/emulator.js';
import { REFERENCED_RESOURCE_ROUTES } from '../kinds/referenced-resources/emulator.js';
import { RESERVED_ADDR_ROUTES } from '../kinds/reserved-addrs/emulator.js';
import { TCP_EDGE_ROUTES } from '../kinds/tcp-edges/emulator.js';
import { TLS_EDGE_ROUTES } from '../kinds/tls-edges/emulator.js';
import { acceptFamilyBodies } from './body-envelopes.js';
import type { RouteDefinition } from './handler.js';

/** Every endpoint the emulator serves: the spec's and the emulator-only ones. */
export const EMULATOR_ROUTES: readonly RouteDefinition[] = acceptFamilyBodies([
  ...IP_POLICY_RULE_ROUTES,
  ...RESERVED_ADDR_ROUTES,
  ...CERTIFICATE_AUTHORITY_ROUTES,
  ...HTTPS_EDGE_ROUTES,
  ...HTTPS_EDGE_ROUTE_ROUTES,
  ...TCP_EDGE_ROUTES,
  ...TLS_EDGE_ROUTES,
  ...REFERENCED_RESOURCE_ROUTES,
]);
