import { familyRule } from '../../emulator/family-rule.js';

/** The catalogue's heading of these rows (docs/family-errors.md). */
export const CERTIFICATE_AUTHORITIES_SECTION = 'Certificate authorities';

const section = [CERTIFICATE_AUTHORITIES_SECTION];

export const PEM_MISSING = familyRule({
  code: 1919,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'no ca_pem, or an empty one',
  static: true,
});

export const NOT_PEM = familyRule({
  code: 1920,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a ca_pem that is no PEM block, or has text before or after its block',
  static: true,
});

export const PEM_HEADERS = familyRule({
  code: 1910,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a PEM block with headers (Proc-Type: …)',
  static: true,
});

export const NOT_A_CERTIFICATE_BLOCK = familyRule({
  code: 1911,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a PEM block of another type than CERTIFICATE (a private key, say); only the type is named',
  static: true,
});

export const SEVERAL_CERTIFICATES = familyRule({
  code: 1912,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'more than one certificate',
  static: true,
});

export const NOT_A_CA = familyRule({
  code: 1913,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a certificate whose basic constraints do not say CA:TRUE',
  static: true,
});

export const UNPARSABLE_CERTIFICATE = familyRule({
  code: 1900,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a CERTIFICATE block that does not parse as X.509 (or has a malformed key usage)',
  static: true,
});

/** The family's limit is unpublished: the emulator takes at most 64 KB. */
export const PEM_TOO_LARGE = familyRule({
  code: 1921,
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a ca_pem over 64 KB (the family publishes no limit)',
  static: true,
});

/** Twin pages; the catalogue does not say which is a CA's: a variant picks the pair. */
export const CA_DESCRIPTION_TOO_LONG = familyRule({
  code: { variant: 'ca-length-errors', byValue: { '1914': 1914, '1916': 1916 } },
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'a description over 255 bytes',
  static: true,
});

export const CA_METADATA_TOO_LONG = familyRule({
  code: { variant: 'ca-length-errors', byValue: { '1914': 1915, '1916': 1917 } },
  status: 400,
  word: 'invalid_field',
  sections: section,
  condition: 'metadata over 4096 bytes',
  static: true,
});

/** Every rule of these rows, for the catalogue's test (EmulatorPart.errors). */
export const CERTIFICATE_AUTHORITY_ERRORS = [
  PEM_MISSING,
  NOT_PEM,
  PEM_HEADERS,
  NOT_A_CERTIFICATE_BLOCK,
  SEVERAL_CERTIFICATES,
  NOT_A_CA,
  UNPARSABLE_CERTIFICATE,
  PEM_TOO_LARGE,
  CA_DESCRIPTION_TOO_LONG,
  CA_METADATA_TOO_LONG,
];
