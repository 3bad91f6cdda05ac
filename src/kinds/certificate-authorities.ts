import type { ApiRequest } from '../api/edge-api.js';
import { expectId, expectObject, optionalString } from './api-json.js';
import { checkCaPem } from './ca-pem-check.js';
import { CERTIFICATE_AUTHORITIES_SCHEMA } from './certificate-authorities.schema.js';
import { normalizeDesiredFields } from './desired-common-fields.js';
import type { EntryProblem, Kind, SourceResolver } from './kind.js';
import { ID_PREFIXES } from './kind-name.js';
import { listLiveObjects } from './list-live-objects.js';
import { buildLiveObject, withoutUndefined } from './live-object.js';
import type { LiveObject } from './live-state.js';
import { patchBody } from './patch-body.js';
import { canonicalPem } from './pem.js';
import { rejectModule } from './reject-module.js';

const NAME = 'certificate_authorities';
const PATH = '/certificate_authorities';

function fromApi(raw: unknown): LiveObject {
  const object = expectObject(raw, NAME, 'certificate authority');
  const pem = object.ca_pem;
  return buildLiveObject({
    kind: NAME,
    id: expectId(object, NAME),
    raw,
    createdAt: object.created_at,
    metadata: object.metadata,
    spec: {
      description: optionalString(object, 'description'),
      ca_pem: typeof pem === 'string' ? canonicalPem(pem) : pem,
    },
    outputs: {
      subject_common_name: object.subject_common_name,
      not_before: object.not_before,
      not_after: object.not_after,
      key_usages: object.key_usages,
      extended_key_usages: object.extended_key_usages,
    },
  });
}

function normalizeDesired(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return normalizeDesiredFields(spec, {
    ca_pem: typeof spec.ca_pem === 'string' ? canonicalPem(spec.ca_pem) : spec.ca_pem,
  });
}

/** Exactly one of `ca_pem` and `ca_pem_file` holds the certificate. */
function checkEntry(value: Readonly<Record<string, unknown>>): EntryProblem[] {
  const hasPem = value.ca_pem !== undefined;
  const hasFile = value.ca_pem_file !== undefined;
  if (hasPem !== hasFile) return [];
  return [
    {
      code: 'ca_pem_source',
      pointer: hasPem ? '/ca_pem_file' : '',
      message: hasPem
        ? 'set ca_pem or ca_pem_file, not both'
        : 'missing the certificate: set ca_pem or ca_pem_file',
    },
  ];
}

/** Reads the PEM from `ca_pem_file` or from `ca_pem` (a literal, `{ env }` or `{ file }`) into `ca_pem`, and checks it. */
async function resolveSources(spec: Record<string, unknown>, resolver: SourceResolver): Promise<void> {
  // Without exactly one source checkEntry has already reported the entry.
  if ((spec.ca_pem === undefined) === (spec.ca_pem_file === undefined)) return;
  const fromFile = typeof spec.ca_pem_file === 'string';
  const pointer = fromFile ? '/ca_pem_file' : '/ca_pem';
  const pem = fromFile
    ? await resolver.file(pointer, spec.ca_pem_file as string)
    : await resolver.secret(pointer, spec.ca_pem);
  // An unread { env } / { file } PEM has no text to check; ca_pem_file is a
  // certificate, not a secret, and is always read.
  const unread = !fromFile && typeof spec.ca_pem !== 'string' && !resolver.readsSecrets;
  if (pem !== undefined) {
    const invalid = unread ? undefined : checkCaPem(pointer, pem);
    if (invalid !== undefined) resolver.problem(invalid);
    spec.ca_pem = pem;
  }
  if (fromFile) {
    delete spec.ca_pem_file;
    resolver.moved('/ca_pem_file', '/ca_pem');
  }
}

export const certificateAuthorities: Kind = {
  name: NAME,
  title: 'certificate authority',
  idPrefix: ID_PREFIXES.certificate_authority,
  ownership: 'metadata',
  fields: [
    { name: 'description', onChange: 'update' },
    { name: 'metadata', onChange: 'update' },
    { name: 'ca_pem', onChange: 'replace', mayHoldSecrets: true },
  ],
  modules: [],
  schema: CERTIFICATE_AUTHORITIES_SCHEMA,
  idTitle: 'a CA ID',
  checkEntry,
  resolveSources,
  readLive: (ctx) => listLiveObjects(ctx.api, { kind: NAME, path: PATH, listKey: NAME }, fromApi, ctx.signal),
  fromApi,
  normalizeDesired,
  createRequest: (spec, metadata): ApiRequest => ({
    method: 'POST',
    path: PATH,
    body: withoutUndefined({ description: spec.description, metadata, ca_pem: spec.ca_pem }),
  }),
  updateRequest: (id, changed): ApiRequest => ({
    method: 'PATCH',
    path: `${PATH}/${id}`,
    body: patchBody(changed, ['description', 'metadata']),
  }),
  deleteRequest: (id): ApiRequest => ({ method: 'DELETE', path: `${PATH}/${id}` }),
  moduleRequest: rejectModule(NAME),
  moduleReadRequest: rejectModule(NAME),
};
