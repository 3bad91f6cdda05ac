import type { NamedIds } from '../kind.js';

/** IP policies: rules belong to one, IP restrictions name some; edgesync does not manage them. */
export const IP_POLICY_IDS: NamedIds = {
  prefix: 'ipp_',
  title: 'IP policy',
  path: '/ip_policies',
};

/** Endpoint configurations: a reserved address attaches one; edgesync does not manage them. */
export const ENDPOINT_CONFIGURATION_IDS: NamedIds = {
  prefix: 'ec_',
  title: 'endpoint configuration',
  path: '/endpoint_configurations',
};
