import { MAX_PEM_BYTES, parseCaPem } from '../ca-certificate.js';
import { checkObject, DESCRIPTION_RULE, METADATA_RULE, type ObjectRules } from '../field-rules.js';
import type { HandlerEnv, RouteDefinition } from '../handler.js';
import { listPage } from '../pagination.js';
import { findRecord, newBaseRecord, patchDescriptionMetadata, renderBase } from '../record-base.js';
import type { CertificateAuthorityRecord } from '../records.js';
import { deleteReferenceTarget } from '../reference-users.js';

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

function find(env: HandlerEnv, id: string | undefined): CertificateAuthorityRecord {
  return findRecord(env, 'certificate_authorities', id, 'certificate authority');
}

export const CERTIFICATE_AUTHORITY_ROUTES: readonly RouteDefinition[] = [
  {
    method: 'POST',
    template: '/certificate_authorities',
    handler: (request, env) => ({
      status: 201,
      body: renderCertificateAuthority(createCertificateAuthority(env, request.body), env),
    }),
  },
  {
    method: 'GET',
    template: '/certificate_authorities',
    handler: (request, env) =>
      listPage(
        env.store.pages('certificate_authorities'),
        'certificate_authorities',
        (r) => renderCertificateAuthority(r, env),
        request,
        env,
      ),
  },
  {
    method: 'GET',
    template: '/certificate_authorities/{id}',
    handler: (request, env) => ({
      status: 200,
      body: renderCertificateAuthority(find(env, request.params.id), env),
    }),
  },
  {
    method: 'PATCH',
    template: '/certificate_authorities/{id}',
    handler: (request, env) => {
      const record = find(env, request.params.id);
      patchDescriptionMetadata(record, checkObject(request.body, UPDATE_RULES));
      env.store.changed();
      return { status: 200, body: renderCertificateAuthority(record, env) };
    },
  },
  {
    method: 'DELETE',
    template: '/certificate_authorities/{id}',
    handler: (request, env) => {
      const record = find(env, request.params.id);
      deleteReferenceTarget(env, 'certificate_authorities', record.id);
      return { status: 204 };
    },
  },
];
