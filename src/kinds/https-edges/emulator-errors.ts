import { familyRule } from '../../emulator/family-rule.js';
import { HTTPS_EDGES_SECTION } from '../edge-modules/emulator-errors.js';

/** The catalogue's heading of the route rows (docs/family-errors.md). */
export const ROUTES_SECTION = 'HTTPS edge routes (as read and selected) and the route OIDC module';

const https = [HTTPS_EDGES_SECTION];
const routes = [ROUTES_SECTION];

export const EDGE_REQUEST_INVALID = familyRule({
  code: 7002,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: 'an edge update that sets a module to null (a module is removed by its own DELETE)',
});

export const EDGE_SEVERAL_PROBLEMS = familyRule({
  code: 7028,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: 'an edge create or update with more than one bad field, all listed in one answer',
});

export const HOSTPORT_NOT_NAME_PORT = familyRule({
  code: 7104,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: 'a hostport that is not a DNS name, a colon and a port number',
  static: true,
});

export const HOSTPORT_PORT_RANGE = familyRule({
  code: 7112,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: 'a hostport whose port is outside 1 to 65535',
  static: true,
});

export const HOSTPORT_NOT_443 = familyRule({
  code: 7116,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: 'a domain hostport on a port other than 443',
  static: true,
});

export const DOMAIN_NOT_RESERVED = familyRule({
  code: 7117,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition:
    'a hostport on an IP address, which no reserved domain is (the emulator does not model reserved domains)',
  static: true,
});

export const TCP_ADDRESS_ON_HTTPS = familyRule({
  code: 7121,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: "a hostport that is one of the account's reserved TCP addresses",
});

export const TERMINATE_AT_ON_HTTPS = familyRule({
  code: 7109,
  status: 400,
  word: 'invalid_field',
  sections: https,
  condition: "terminate_at in an HTTPS edge's tls_termination",
  static: true,
});

export const ROUTE_NOT_FOUND = familyRule({
  code: 7124,
  status: 404,
  word: 'not_found',
  sections: routes,
  condition: 'a route ID the account does not have',
});

export const ROUTE_OF_ANOTHER_EDGE = familyRule({
  code: 7110,
  status: 404,
  word: 'not_found',
  sections: routes,
  condition: "a route of another edge than the path's",
});

export const ROUTE_MATCH_MISSING = familyRule({
  code: 7123,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'a route create without match, or with an empty one',
});

export const ROUTE_MATCH_TYPE = familyRule({
  code: 7130,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'a match_type that is missing or not exact_path or path_prefix',
});

export const ROUTE_MATCH_NOT_PATH = familyRule({
  code: 7131,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'a match without a leading slash (variant route-match=path; `any` takes hostnames too)',
});

export const ROUTE_MATCH_TAKEN = familyRule({
  code: 7126,
  status: 400,
  word: 'conflict',
  sections: routes,
  condition: 'a match another route of the same edge has',
});

export const AUTH_ON_ANOTHER_ROUTE = familyRule({
  code: 7155,
  status: 400,
  word: 'conflict',
  sections: routes,
  condition: 'OAuth, OIDC or SAML on a route while another route of the edge has one of them',
  static: true,
});

export const SEVERAL_AUTH_MODULES = familyRule({
  code: 7079,
  status: 400,
  word: 'conflict',
  sections: routes,
  condition: 'a route with more than one of OAuth, OIDC and SAML',
});

export const ISSUER_MISSING = familyRule({
  code: 7088,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'an OIDC module without issuer',
  static: true,
});

export const ISSUER_TOO_LONG = familyRule({
  code: 7087,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'an OIDC issuer over 255 bytes',
  static: true,
});

export const CLIENT_ID_MISSING = familyRule({
  code: 7089,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'an OIDC module without client_id, or with an empty one',
  static: true,
});

export const CLIENT_SECRET_MISSING = familyRule({
  code: 7090,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'an OIDC module without client_secret, or with an empty one',
  static: true,
});

export const COOKIE_PREFIX = familyRule({
  code: 7042,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition:
    'a cookie_prefix with anything but letters, digits and periods (OAuth and SAML always; OIDC under openid-cookie-prefix=checked)',
  static: true,
});

export const INACTIVITY_TOO_LONG = familyRule({
  code: 7092,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'an inactivity_timeout over one year (31536000 s)',
  static: true,
});

/** The family's maximum is unpublished: the emulator holds a session to one year, as its inactivity. */
export const SESSION_TOO_LONG = familyRule({
  code: 7162,
  status: 400,
  word: 'invalid_field',
  sections: routes,
  condition: 'a maximum_duration over one year (the bound of inactivity_timeout; the family publishes none)',
  static: true,
});

/** Every rule of the HTTPS edge and route rows, for the catalogue's test (EmulatorPart.errors). */
export const HTTPS_EDGE_ERRORS = [
  EDGE_REQUEST_INVALID,
  EDGE_SEVERAL_PROBLEMS,
  HOSTPORT_NOT_NAME_PORT,
  HOSTPORT_PORT_RANGE,
  HOSTPORT_NOT_443,
  DOMAIN_NOT_RESERVED,
  TCP_ADDRESS_ON_HTTPS,
  TERMINATE_AT_ON_HTTPS,
  ROUTE_NOT_FOUND,
  ROUTE_OF_ANOTHER_EDGE,
  ROUTE_MATCH_MISSING,
  ROUTE_MATCH_TYPE,
  ROUTE_MATCH_NOT_PATH,
  ROUTE_MATCH_TAKEN,
  AUTH_ON_ANOTHER_ROUTE,
  SEVERAL_AUTH_MODULES,
  ISSUER_MISSING,
  ISSUER_TOO_LONG,
  CLIENT_ID_MISSING,
  CLIENT_SECRET_MISSING,
  COOKIE_PREFIX,
  INACTIVITY_TOO_LONG,
  SESSION_TOO_LONG,
];
