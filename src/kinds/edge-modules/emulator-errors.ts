import { familyRule } from '../../emulator/family-rule.js';

/** The catalogue's headings of the edge rows (docs/family-errors.md). */
export const HTTPS_EDGES_SECTION = 'HTTPS edges';
export const TCP_EDGES_SECTION = 'TCP edges: hostport kinds and the IP restriction module';
export const TLS_EDGES_SECTION = 'TLS edges: hostport kinds, mutual TLS and TLS termination modules';

const https = [HTTPS_EDGES_SECTION];
const tcp = [TCP_EDGES_SECTION];
const tls = [TLS_EDGES_SECTION];
const httpsAndTls = [HTTPS_EDGES_SECTION, TLS_EDGES_SECTION];

/** The rules every edge kind shares: its ID, its common fields, its hostports and the modules of several kinds. */
export const EDGE_NOT_FOUND = familyRule({
  code: 7000,
  status: 404,
  word: 'not_found',
  sections: [HTTPS_EDGES_SECTION, TCP_EDGES_SECTION, TLS_EDGES_SECTION],
  condition: 'an edge ID the account does not have (the edge, or a module of it)',
});

export const EDGE_ID_MALFORMED = familyRule({
  code: 7001,
  status: 400,
  word: 'invalid_id',
  sections: https,
  condition: "an edge ID in the path with its kind's prefix but no ID after it",
});

export const EDGE_DESCRIPTION_TOO_LONG = familyRule({
  code: 7073,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: 'an edge description over 255 bytes',
  static: true,
});

export const EDGE_METADATA_TOO_LONG = familyRule({
  code: 7074,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: 'edge metadata over 4096 bytes',
  static: true,
});

export const HOSTPORT_IN_USE = familyRule({
  code: 7122,
  status: 400,
  word: 'conflict',
  sections: https,
  condition: 'a hostport another edge (HTTPS, TCP or TLS) serves',
  static: true,
});

export const CA_NOT_FOUND = familyRule({
  code: 7072,
  status: 400,
  word: 'reference_not_found',
  sections: httpsAndTls,
  condition: 'a certificate_authority_ids item the account does not have',
});

export const CA_ID_MALFORMED = familyRule({
  code: 228,
  status: 400,
  word: 'invalid_id',
  sections: httpsAndTls,
  condition: 'a certificate_authority_ids item with the ca_ prefix but no ID after it',
  static: true,
});

export const MIN_VERSION_UNSUPPORTED = familyRule({
  code: 219,
  status: 400,
  word: 'invalid_field',
  sections: httpsAndTls,
  condition: 'a min_version the service does not support (1.0 to 1.3, or 1.2 and 1.3 under a variant)',
  static: true,
});

export const IP_POLICIES_EMPTY = familyRule({
  code: 7025,
  status: 400,
  word: 'invalid_field',
  sections: tcp,
  condition: 'an IP restriction without ip_policy_ids, or with an empty list',
  static: true,
});

export const IP_POLICY_NOT_FOUND = familyRule({
  code: 7007,
  status: 400,
  word: 'reference_not_found',
  sections: tcp,
  condition: 'an ip_policy_ids item the account does not have',
});

export const IP_POLICY_ID_MALFORMED = familyRule({
  code: 229,
  status: 400,
  word: 'invalid_id',
  sections: tcp,
  condition: 'an ip_policy_ids item with the ipp_ prefix but no ID after it',
  static: true,
});

export const TERMINATE_AT_INVALID = familyRule({
  code: 224,
  status: 400,
  word: 'invalid_field',
  sections: tls,
  condition: 'a terminate_at that is not edge or upstream',
  static: true,
});

export const MIN_VERSION_WITH_UPSTREAM = familyRule({
  code: 7032,
  status: 400,
  word: 'invalid_field',
  sections: tls,
  condition: 'a min_version beside terminate_at: upstream',
  static: true,
});

export const MODULES_NEED_EDGE_TERMINATION = familyRule({
  code: 7062,
  status: 400,
  word: 'conflict',
  sections: tls,
  condition: 'mutual TLS on a TLS edge that passes TLS through (terminate_at: upstream), in either order',
  static: true,
});

/** The edge kinds' shared rules, for the catalogue's test (each edge kind's EmulatorPart.errors). */
export const EDGE_MODULE_ERRORS = [
  EDGE_NOT_FOUND,
  EDGE_ID_MALFORMED,
  EDGE_DESCRIPTION_TOO_LONG,
  EDGE_METADATA_TOO_LONG,
  HOSTPORT_IN_USE,
  CA_NOT_FOUND,
  CA_ID_MALFORMED,
  MIN_VERSION_UNSUPPORTED,
  IP_POLICIES_EMPTY,
  IP_POLICY_NOT_FOUND,
  IP_POLICY_ID_MALFORMED,
  TERMINATE_AT_INVALID,
  MIN_VERSION_WITH_UPSTREAM,
  MODULES_NEED_EDGE_TERMINATION,
];
