import { familyRule } from './family-rule.js';

/** The catalogue's heading of the rows any request can meet. */
export const API_WIDE = 'API-wide (any request)';

const api = [API_WIDE];

/** The request pipeline's rules (request-gate.ts, http-io.ts, pagination.ts, field-rules.ts, resource-id checks). */
export const MISSING_AUTHORIZATION = familyRule({
  code: 200,
  status: 401,
  word: 'unauthorized',
  sections: api,
  condition: 'no Authorization header',
});

export const UNPARSABLE_AUTHORIZATION = familyRule({
  code: 201,
  status: 401,
  word: 'unauthorized',
  sections: api,
  condition: 'an Authorization header that is neither a Bearer nor a Basic credential',
});

export const MALFORMED_CREDENTIAL = familyRule({
  code: 202,
  status: 401,
  word: 'unauthorized',
  sections: api,
  condition:
    'a credential with characters no API key has (not a bearer token: letters, digits, -._~+/ and trailing =)',
});

export const UNKNOWN_CREDENTIAL = familyRule({
  code: 203,
  status: 401,
  word: 'unauthorized',
  sections: api,
  condition: 'a well-formed credential that is not the API key',
});

export const KEY_ID_AS_CREDENTIAL = familyRule({
  code: 208,
  status: 401,
  word: 'unauthorized',
  sections: api,
  condition: "an API key's ID (ak_…) sent instead of its secret",
});

export const MISSING_VERSION = familyRule({
  code: 218,
  status: 400,
  word: 'missing_service_version',
  sections: api,
  condition: 'no Service-Version header',
});

export const UNSUPPORTED_VERSION = familyRule({
  code: 217,
  status: 400,
  word: 'unsupported_service_version',
  sections: api,
  condition: 'a Service-Version other than 2',
});

export const MISSING_CONTENT_TYPE = familyRule({
  code: 216,
  status: 400,
  word: 'invalid_content_type',
  sections: api,
  condition: 'a body without a Content-Type header',
});

export const UNSUPPORTED_CONTENT_TYPE = familyRule({
  code: 210,
  status: 400,
  word: 'invalid_content_type',
  sections: api,
  condition: 'a body whose Content-Type is not application/json',
});

export const BODY_NOT_TAKEN = familyRule({
  code: 211,
  status: 400,
  word: 'invalid_body',
  sections: api,
  condition: 'a body on GET or DELETE',
});

export const BODY_CUT_SHORT = familyRule({
  code: 212,
  status: 400,
  word: 'invalid_body',
  sections: api,
  condition: 'a body that ends before its Content-Length',
});

export const MALFORMED_JSON = familyRule({
  code: 213,
  status: 400,
  word: 'invalid_json',
  sections: api,
  condition: 'a body that is not JSON, or not a JSON object',
});

export const UNKNOWN_FIELD = familyRule({
  code: 214,
  status: 400,
  word: 'unknown_field',
  sections: api,
  condition: 'a body field the request does not take (output-only ones included)',
});

export const INVALID_VALUE = familyRule({
  code: 215,
  status: 400,
  word: 'invalid_field',
  sections: api,
  condition: 'a field of the wrong JSON type, or a value refused by no rule of its own',
});

export const UNPARSABLE_QUERY = familyRule({
  code: 230,
  status: 400,
  word: 'invalid_query',
  sections: api,
  condition: 'a query string with a malformed percent-escape',
});

export const UNKNOWN_QUERY_PARAMETER = familyRule({
  code: 231,
  status: 400,
  word: 'invalid_query',
  sections: api,
  condition: 'a query parameter the request does not take (any on a request that is not a list)',
});

export const REPEATED_QUERY_PARAMETER = familyRule({
  code: 232,
  status: 400,
  word: 'invalid_query',
  sections: api,
  condition: 'a query parameter given twice (before_id and beforeId count as one)',
});

export const PAGE_SIZE = familyRule({
  code: { variant: 'page-size-error', byValue: { '233': 233, '244': 244 } },
  status: 400,
  word: 'invalid_field',
  sections: api,
  condition: 'a limit that is not a whole number from 1 to 100',
});

export const WRONG_ID_PREFIX = familyRule({
  code: 227,
  status: 400,
  word: 'invalid_id',
  sections: api,
  condition:
    'an ID, in the path or in a field, without the prefix its place expects, or with characters after it that no ID has',
  static: true,
});

export const RATE_LIMITED = familyRule({
  code: 226,
  status: 429,
  word: 'rate_limited',
  sections: api,
  condition: 'a request over the budget (120 per rolling 60 s by default), with Retry-After',
});

export const METADATA_TOO_LONG = familyRule({
  code: 100,
  status: 400,
  word: 'invalid_field',
  sections: api,
  condition: 'metadata over 4096 bytes, on a resource the family gives no number of its own for it',
  static: true,
});

/** Every API-wide rule, for the catalogue's test. */
export const API_WIDE_RULES = [
  MISSING_AUTHORIZATION,
  UNPARSABLE_AUTHORIZATION,
  MALFORMED_CREDENTIAL,
  UNKNOWN_CREDENTIAL,
  KEY_ID_AS_CREDENTIAL,
  MISSING_VERSION,
  UNSUPPORTED_VERSION,
  MISSING_CONTENT_TYPE,
  UNSUPPORTED_CONTENT_TYPE,
  BODY_NOT_TAKEN,
  BODY_CUT_SHORT,
  MALFORMED_JSON,
  UNKNOWN_FIELD,
  INVALID_VALUE,
  UNPARSABLE_QUERY,
  UNKNOWN_QUERY_PARAMETER,
  REPEATED_QUERY_PARAMETER,
  PAGE_SIZE,
  WRONG_ID_PREFIX,
  RATE_LIMITED,
  METADATA_TOO_LONG,
] as const;
