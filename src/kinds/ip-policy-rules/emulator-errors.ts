import { familyRule } from '../../emulator/family-rule.js';

/** The catalogue's heading of these rows (docs/family-errors.md). */
export const IP_POLICY_RULES_SECTION = 'IP policy rules';

const section = [IP_POLICY_RULES_SECTION];

export const RULE_FIELD_MISSING = familyRule({
  code: 1405,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a create without cidr or ip_policy_id',
  static: true,
});

export const NOT_A_CIDR = familyRule({
  code: 1406,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a cidr that is no IPv4 or IPv6 address or range',
  static: true,
});

export const BARE_ADDRESS = familyRule({
  code: 1413,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a cidr without its prefix length (a bare address)',
  static: true,
});

export const HOST_BITS_SET = familyRule({
  code: 1409,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a cidr with host bits set (not written as its network address)',
  static: true,
});

export const CIDR_TAKEN = familyRule({
  code: 1408,
  status: 400,
  word: 'conflict',
  sections: section,
  condition: 'a second rule for a CIDR its IP policy already has a rule for (create or cidr update)',
  static: true,
});

export const BAD_ACTION = familyRule({
  code: 1422,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'an action that is missing or not allow or deny',
  static: true,
});

/** The catalogue has two pages for it and does not say which a rule create answers: a variant picks. */
export const POLICY_ID_MALFORMED = familyRule({
  code: { variant: 'policy-id-error', byValue: { '1414': 1414, '229': 229 } },
  status: 400,
  word: 'invalid_id',
  sections: section,
  condition: 'an ip_policy_id with the ipp_ prefix but no ID after it',
  static: true,
});

export const POLICY_NOT_FOUND = familyRule({
  code: 1402,
  status: 400,
  word: 'reference_not_found',
  sections: section,
  condition: 'an ip_policy_id the account does not have',
});

export const RULE_DESCRIPTION_TOO_LONG = familyRule({
  code: 1421,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a description over 255 bytes',
  static: true,
});

export const RULE_UPDATE_EMPTY = familyRule({
  code: 1401,
  status: 400,
  word: 'invalid_body',
  sections: section,
  condition: 'an update with none of description, metadata and cidr',
});

export const RULE_NOT_FOUND = familyRule({
  code: 1404,
  status: 404,
  word: 'not_found',
  sections: section,
  condition: 'a rule ID the account does not have',
});

/** Every rule of these rows, for the catalogue's test (EmulatorPart.errors). */
export const IP_POLICY_RULE_ERRORS = [
  RULE_FIELD_MISSING,
  NOT_A_CIDR,
  BARE_ADDRESS,
  HOST_BITS_SET,
  CIDR_TAKEN,
  BAD_ACTION,
  POLICY_ID_MALFORMED,
  POLICY_NOT_FOUND,
  RULE_DESCRIPTION_TOO_LONG,
  RULE_UPDATE_EMPTY,
  RULE_NOT_FOUND,
];
