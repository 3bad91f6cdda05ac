import { collectionRoutes } from '../../emulator/collection-routes.js';
import type { EmulatedCollection, EmulatorPart } from '../../emulator/emulated-collection.js';
import { checkObject, descriptionRule, metadataRule, type ObjectRules } from '../../emulator/field-rules.js';
import type { HandlerEnv } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { BaseRecord } from '../../emulator/records.js';
import { type CaCertificateFacts, MAX_PEM_BYTES, parseCaPem } from './emulator-ca-certificate.js';
import {
  CA_DESCRIPTION_TOO_LONG,
  CA_METADATA_TOO_LONG,
  CERTIFICATE_AUTHORITY_ERRORS,
  PEM_MISSING,
  PEM_TOO_LARGE,
} from './emulator-errors.js';

/** The stored CA: its PEM and the facts the service derives from it. */
export interface CertificateAuthorityRecord extends BaseRecord, CaCertificateFacts {}

/**
 * Edges whose mutual TLS names a CA keep it from being deleted: a module
 * whose CA vanished would refuse every client, which the family does not allow.
 */
export const CERTIFICATE_AUTHORITIES: EmulatedCollection<CertificateAuthorityRecord> & {
  readonly path: string;
} = {
  name: 'certificate_authorities',
  idPrefix: 'ca_',
  title: 'certificate authority',
  path: '/certificate_authorities',
  seed: (env, body, id) => {
    createCertificateAuthority(env, body, id);
  },
};

const UPDATE_RULES: ObjectRules = {
  description: descriptionRule(CA_DESCRIPTION_TOO_LONG),
  metadata: metadataRule(CA_METADATA_TOO_LONG),
};

const CREATE_RULES: ObjectRules = {
  ...UPDATE_RULES,
  ca_pem: {
    type: 'string',
    required: true,
    maxBytes: MAX_PEM_BYTES,
    refusals: { missing: PEM_MISSING, tooLong: PEM_TOO_LARGE },
  },
};

export function renderCertificateAuthority(
  record: CertificateAuthorityRecord,
  env: HandlerEnv,
): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/certificate_authorities/${record.id}`, env),
    ca_pem: record.ca_pem,
    subject_common_name: record.subject_common_name,
    not_before: record.not_before,
    not_after: record.not_after,
    key_usages: [...record.key_usages],
    extended_key_usages: [...record.extended_key_usages],
  };
}

export function createCertificateAuthority(
  env: HandlerEnv,
  body: unknown,
  fixedId?: string,
): CertificateAuthorityRecord {
  const checked = checkObject(body, CREATE_RULES);
  const facts = parseCaPem(checked.ca_pem as string);
  const record: CertificateAuthorityRecord = {
    ...newBaseRecord(env, CERTIFICATE_AUTHORITIES, fixedId, checked),
    ...facts,
  };
  env.store.insert(CERTIFICATE_AUTHORITIES, record);
  return record;
}

/** Certificate authorities in the emulator. */
export const CERTIFICATE_AUTHORITIES_PART: EmulatorPart = {
  collections: [CERTIFICATE_AUTHORITIES],
  routes: collectionRoutes({
    collection: CERTIFICATE_AUTHORITIES,
    render: renderCertificateAuthority,
    create: createCertificateAuthority,
    update: (_record, body) => checkObject(body, UPDATE_RULES),
  }),
  errors: CERTIFICATE_AUTHORITY_ERRORS,
};
