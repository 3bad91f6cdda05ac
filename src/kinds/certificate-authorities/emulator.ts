import { collectionRoutes } from '../../emulator/collection-routes.js';
import {
  checkObject,
  DESCRIPTION_RULE,
  METADATA_RULE,
  type ObjectRules,
} from '../../emulator/field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../../emulator/handler.js';
import { newBaseRecord, renderBase } from '../../emulator/record-base.js';
import type { CertificateAuthorityRecord } from '../../emulator/records.js';
import { deleteReferenceTarget } from '../referenced-resources/emulator-reference-users.js';
import { MAX_PEM_BYTES, parseCaPem } from './emulator-ca-certificate.js';

const CREATE_RULES: ObjectRules = {
  description: DESCRIPTION_RULE,
  metadata: METADATA_RULE,
  ca_pem: { type: 'string', required: true, maxBytes: MAX_PEM_BYTES },
};

const UPDATE_RULES: ObjectRules = { description: DESCRIPTION_RULE, metadata: METADATA_RULE };

export function renderCertificateAuthority(
  record: CertificateAuthorityRecord,
  env: HandlerEnv,
): Record<string, unknown> {
  return {
    ...renderBase(record, `${env.baseUrl}/certificate_authorities/${record.id}`),
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
    ...newBaseRecord(env, 'certificate_authority', 'certificate_authorities', fixedId, checked),
    ...facts,
  };
  env.store.insert('certificate_authorities', record);
  return record;
}

export const CERTIFICATE_AUTHORITY_ROUTES: readonly RouteDefinition[] = collectionRoutes({
  collection: 'certificate_authorities',
  path: '/certificate_authorities',
  title: 'certificate authority',
  render: renderCertificateAuthority,
  create: createCertificateAuthority,
  update: (_record, body) => checkObject(body, UPDATE_RULES),
  remove: (env, record) => deleteReferenceTarget(env, 'certificate_authorities', record.id),
});
