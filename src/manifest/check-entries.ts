import { X509Certificate } from 'node:crypto';
import { ID_PREFIXES, type KindName } from '../kinds/kind-name.js';
import { encodeMetadata, MARKER_KEY } from '../kinds/ownership-marker.js';
import { checkCidr } from './check-cidr.js';
import { ManifestError, type ManifestErrorCode } from './manifest-error.js';
import { entryLocation, entryPath, type RawEntry } from './raw-entry.js';

export const MAX_DESCRIPTION_BYTES = 255;
export const MAX_METADATA_BYTES = 4096;

/** Kinds whose resources carry `metadata` (and with it the ownership marker). */
const METADATA_KINDS: ReadonlySet<KindName> = new Set([
  'ip_policy_rules',
  'reserved_addrs',
  'certificate_authorities',
  'https_edges',
]);

const PREFIX_TITLES: Readonly<Record<string, string>> = {
  ipr_: 'an IP policy rule ID',
  ipp_: 'an IP policy ID',
  ra_: 'a reserved address ID',
  ca_: 'a certificate authority ID',
  ec_: 'an endpoint configuration ID',
  edghts_: 'an HTTPS edge ID',
  edghtsrt_: 'an HTTPS edge route ID',
  edgtcp_: 'a TCP edge ID',
  edgtls_: 'a TLS edge ID',
};

/** Longest first, so `edghtsrt_` is not taken for `edghts_`. */
const KNOWN_PREFIXES = Object.values(ID_PREFIXES).sort((a, b) => b.length - a.length);

export function idPrefixOf(value: string): string | undefined {
  return KNOWN_PREFIXES.find((prefix) => value.startsWith(prefix));
}

function problem(code: ManifestErrorCode, entry: RawEntry, pointer: string, message: string): ManifestError {
  return new ManifestError(code, entryLocation(entry, pointer), entryPath(entry, pointer), message);
}

/**
 * The checks the schema cannot express, over every entry of every file:
 * names (unique per kind, not ID-like), references between entries, and the
 * spec's rules on values. Entries the schema rejected only take part in the
 * name checks, so one mistake is not reported twice.
 */
export function checkEntries(entries: readonly RawEntry[], owner: string): ManifestError[] {
  const errors: ManifestError[] = [];
  errors.push(...checkNames(entries));
  const namesByKind = new Map<string, Set<string>>();
  for (const entry of entries) {
    const names = namesByKind.get(entry.kind) ?? new Set<string>();
    names.add(entry.name);
    namesByKind.set(entry.kind, names);
  }
  for (const entry of entries) {
    if (!entry.valid) continue;
    errors.push(...checkMetadataAndDescription(entry, owner));
    errors.push(...checkKindRules(entry));
    errors.push(...checkCaReferences(entry, namesByKind));
  }
  return errors;
}

function checkNames(entries: readonly RawEntry[]): ManifestError[] {
  const errors: ManifestError[] = [];
  const firstByKey = new Map<string, RawEntry>();
  for (const entry of entries) {
    const prefix = idPrefixOf(entry.name);
    if (prefix !== undefined) {
      errors.push(
        problem(
          'name_looks_like_id',
          entry,
          '',
          `name "${entry.name}" looks like ${PREFIX_TITLES[prefix] ?? 'an ID'} (prefix ${prefix}); values with an ID prefix are read as IDs, so pick another name, and adopt an existing resource with "id:"`,
        ),
      );
    }
    const key = `${entry.kind}\u0000${entry.name}`;
    const first = firstByKey.get(key);
    if (first === undefined) {
      firstByKey.set(key, entry);
      continue;
    }
    const firstAt = entryLocation(first);
    errors.push(
      problem(
        'duplicate_name',
        entry,
        '',
        `${entry.kind} "${entry.name}" is also defined at ${firstAt.file}:${firstAt.line}:${firstAt.column}; names are unique per kind across all files`,
      ),
    );
  }
  return errors;
}

function checkMetadataAndDescription(entry: RawEntry, owner: string): ManifestError[] {
  const errors: ManifestError[] = [];
  const { description, metadata } = entry.value;
  if (typeof description === 'string') {
    const bytes = Buffer.byteLength(description, 'utf8');
    if (bytes > MAX_DESCRIPTION_BYTES) {
      errors.push(
        problem(
          'too_long',
          entry,
          '/description',
          `is ${bytes} bytes of UTF-8; at most ${MAX_DESCRIPTION_BYTES}`,
        ),
      );
    }
  }
  if (!METADATA_KINDS.has(entry.kind)) return errors;
  const user = (metadata ?? {}) as Record<string, unknown>;
  if (Object.hasOwn(user, MARKER_KEY)) {
    errors.push(
      problem(
        'reserved_metadata_key',
        entry,
        `/metadata/${MARKER_KEY}`,
        `the key "${MARKER_KEY}" is reserved for the ownership marker edgesync writes; rename it`,
      ),
    );
    return errors;
  }
  const sent = encodeMetadata(user, {
    name: entry.name,
    owner,
    ...(entry.value.protect === true ? { protect: true } : {}),
  });
  const bytes = Buffer.byteLength(sent, 'utf8');
  if (bytes > MAX_METADATA_BYTES) {
    errors.push(
      problem(
        'too_long',
        entry,
        metadata === undefined ? '' : '/metadata',
        `metadata is ${bytes} bytes as sent (compact JSON with the ownership marker); at most ${MAX_METADATA_BYTES}`,
      ),
    );
  }
  return errors;
}

function checkKindRules(entry: RawEntry): ManifestError[] {
  const errors: ManifestError[] = [];
  const value = entry.value;
  if (entry.kind === 'ip_policy_rules' && typeof value.cidr === 'string') {
    const cidr = checkCidr(value.cidr);
    if (!cidr.ok) errors.push(problem(cidr.code, entry, '/cidr', cidr.message));
  }
  if (entry.kind === 'certificate_authorities') {
    const hasPem = value.ca_pem !== undefined;
    const hasFile = value.ca_pem_file !== undefined;
    if (hasPem === hasFile) {
      errors.push(
        problem(
          'ca_pem_source',
          entry,
          hasPem ? '/ca_pem_file' : '',
          hasPem
            ? 'set ca_pem or ca_pem_file, not both'
            : 'missing the certificate: set ca_pem or ca_pem_file',
        ),
      );
    }
  }
  if (entry.kind === 'tls_edges') {
    const termination = value.tls_termination as Record<string, unknown> | null | undefined;
    if (termination?.terminate_at === 'upstream' && termination.min_version != null) {
      errors.push(
        problem(
          'min_version_with_upstream',
          entry,
          '/tls_termination/min_version',
          `must be null when terminate_at is "upstream" (found ${JSON.stringify(termination.min_version)})`,
        ),
      );
    }
  }
  if (entry.kind === 'https_edges' && Array.isArray(value.routes)) {
    value.routes.forEach((route: Record<string, unknown>, index) => {
      errors.push(...checkRoute(entry, `/routes/${index}`, route));
    });
  }
  return errors;
}

function checkRoute(entry: RawEntry, pointer: string, route: Record<string, unknown>): ManifestError[] {
  const errors: ManifestError[] = [];
  const hasId = route.id !== undefined;
  const hasType = route.match_type !== undefined;
  const hasMatch = route.match !== undefined;
  if (hasId && (hasType || hasMatch)) {
    errors.push(
      problem(
        'route_selector',
        entry,
        pointer,
        'select the route by id or by match_type and match, not both',
      ),
    );
  } else if (!hasId && !hasType && !hasMatch) {
    errors.push(
      problem('route_selector', entry, pointer, 'select the route by id, or by match_type and match'),
    );
  } else if (!hasId && hasType !== hasMatch) {
    errors.push(
      problem(
        'route_selector',
        entry,
        pointer,
        `match_type and match go together (missing ${hasType ? 'match' : 'match_type'})`,
      ),
    );
  }
  const oidc = route.oidc as Record<string, unknown> | null | undefined;
  if (typeof oidc?.issuer === 'string') {
    const message = issuerProblem(oidc.issuer);
    if (message !== undefined)
      errors.push(problem('invalid_issuer', entry, `${pointer}/oidc/issuer`, message));
  }
  return errors;
}

const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `expected the URL of the OpenID provider, e.g. https://accounts.example.com (found ${JSON.stringify(issuer)})`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)) return undefined;
  return `expected an https URL (http only for localhost) (found ${JSON.stringify(issuer)})`;
}

function checkCaReferences(
  entry: RawEntry,
  namesByKind: ReadonlyMap<string, ReadonlySet<string>>,
): ManifestError[] {
  if (entry.kind !== 'https_edges' && entry.kind !== 'tls_edges') return [];
  const mutualTls = entry.value.mutual_tls as { certificate_authorities?: unknown } | null | undefined;
  const list = mutualTls?.certificate_authorities;
  if (!Array.isArray(list)) return [];
  const errors: ManifestError[] = [];
  list.forEach((reference: string, index) => {
    const pointer = `/mutual_tls/certificate_authorities/${index}`;
    const prefix = idPrefixOf(reference);
    if (prefix === ID_PREFIXES.certificate_authority) return;
    if (prefix !== undefined) {
      errors.push(
        problem(
          'wrong_reference_kind',
          entry,
          pointer,
          `"${reference}" is ${PREFIX_TITLES[prefix] ?? 'an ID of another kind'}; expected a certificate_authorities entry name or a CA ID (ca_…)`,
        ),
      );
      return;
    }
    if (namesByKind.get('certificate_authorities')?.has(reference)) return;
    const otherKind = [...namesByKind].find(([, names]) => names.has(reference))?.[0];
    errors.push(
      otherKind === undefined
        ? problem(
            'unknown_reference',
            entry,
            pointer,
            `no certificate_authorities entry is named "${reference}" (and it is not a CA ID, which starts with ca_)`,
          )
        : problem(
            'wrong_reference_kind',
            entry,
            pointer,
            `"${reference}" is a ${otherKind} entry, not a certificate_authorities entry`,
          ),
    );
  });
  return errors;
}

/** A CA for client certificates: one PEM certificate with basicConstraints CA:TRUE. */
export function checkCaPem(entry: RawEntry, pointer: string, pem: string): ManifestError | undefined {
  let certificate: X509Certificate;
  try {
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate block');
    certificate = new X509Certificate(pem);
  } catch (error) {
    return new ManifestError(
      'invalid_pem',
      entryLocation(entry, pointer),
      entryPath(entry, pointer),
      'expected a PEM certificate ("-----BEGIN CERTIFICATE-----" …) that node:crypto can parse',
      { cause: error },
    );
  }
  if (!certificate.ca) {
    return new ManifestError(
      'invalid_pem',
      entryLocation(entry, pointer),
      entryPath(entry, pointer),
      `the certificate (subject ${certificate.subject.replaceAll('\n', ', ')}) is not a CA (basicConstraints CA:TRUE is missing)`,
    );
  }
  return undefined;
}
