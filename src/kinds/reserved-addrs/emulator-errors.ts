import { familyRule } from '../../emulator/family-rule.js';

/** The catalogue's heading of these rows (docs/family-errors.md). */
export const RESERVED_ADDRS_SECTION = 'Reserved addresses';

const section = [RESERVED_ADDRS_SECTION];

export const BAD_REGION = familyRule({
  code: 500,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a region that is not one of au, eu, ap, us, jp, in, sa',
  static: true,
});

/** The family's limit is unpublished: the emulator holds reserved addresses to 255 bytes, as every other resource. */
export const ADDR_DESCRIPTION_TOO_LONG = familyRule({
  code: 504,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition:
    'a description over 255 bytes (the limit of the other resources; the family publishes none for this one)',
  static: true,
});

export const ADDR_METADATA_TOO_LONG = familyRule({
  code: 505,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'metadata over 4096 bytes',
  static: true,
});

export const ADDR_UPDATE_EMPTY = familyRule({
  code: 506,
  status: 400,
  word: 'invalid_body',
  sections: section,
  condition: 'an update with no value (an endpoint_configuration_id of null or "" is no value)',
});

export const ENDPOINT_CONFIGURATION_ID_MALFORMED = familyRule({
  code: 1601,
  status: 400,
  word: 'invalid_id',
  sections: section,
  condition: 'an endpoint_configuration_id with the ec_ prefix but no ID after it',
  static: true,
});

export const ENDPOINT_CONFIGURATION_NOT_FOUND = familyRule({
  code: 1600,
  status: 400,
  word: 'reference_not_found',
  sections: section,
  condition: 'an endpoint_configuration_id the account does not have',
});

/** Every rule of these rows, for the catalogue's test (EmulatorPart.errors). */
export const RESERVED_ADDR_ERRORS = [
  BAD_REGION,
  ADDR_DESCRIPTION_TOO_LONG,
  ADDR_METADATA_TOO_LONG,
  ADDR_UPDATE_EMPTY,
  ENDPOINT_CONFIGURATION_ID_MALFORMED,
  ENDPOINT_CONFIGURATION_NOT_FOUND,
];
