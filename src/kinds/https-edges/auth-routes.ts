import { asRecord, isRecord } from '../../json-value.js';
import type { EntryProblem, LiveProblem } from '../kind.js';
import type { LiveObject } from '../live-state.js';

/**
 * The service family lets one route of an HTTPS edge authenticate (OAuth,
 * OIDC or SAML enabled: its error 7155), and a route enable one of the
 * three (its 7079). A manifest sets only OIDC; the other two are read as
 * the account holds them. A module with `enabled: false` counts for neither.
 */
const AUTH_MODULES = ['oauth', 'oidc', 'saml'] as const;

function isSet(value: unknown): boolean {
  return isRecord(value) && value.enabled !== false;
}

function routesOf(value: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  return Array.isArray(value.routes) ? value.routes.map((route) => asRecord(route) ?? {}) : [];
}

/** `validate`: at most one route of the entry sets OIDC. */
export function checkOneAuthRoute(value: Readonly<Record<string, unknown>>): EntryProblem[] {
  const problems: EntryProblem[] = [];
  let first: number | undefined;
  routesOf(value).forEach((route, index) => {
    if (!isSet(route.oidc)) return;
    if (first === undefined) {
      first = index;
      return;
    }
    problems.push({
      code: 'one_auth_route',
      pointer: `/routes/${index}/oidc`,
      message: `routes[${first}] of this edge already enables oidc; the service lets one route per edge authenticate (oauth, oidc or saml)`,
    });
  });
  return problems;
}

/** The live route a desired route selects (by id, or by match_type and match), when exactly one does. */
function selected(
  desired: Readonly<Record<string, unknown>>,
  live: readonly Record<string, unknown>[],
): Record<string, unknown> | undefined {
  const found = live.filter((route) =>
    desired.id !== undefined
      ? route.id === desired.id
      : route.match_type === desired.match_type && route.match === desired.match,
  );
  return found.length === 1 ? found[0] : undefined;
}

function describe(route: Readonly<Record<string, unknown>>): string {
  return `route ${String(route.id)} (${String(route.match_type)} ${JSON.stringify(route.match)})`;
}

/**
 * `plan`: the entry's OIDC changes against the routes the edge holds. A
 * route that gains OIDC may not carry OAuth or SAML (7079), nor may another
 * route of the edge keep an authenticating module (7155). OIDC that moves
 * from one route to another cannot be applied in one go: the service takes
 * the new one only after the old one is gone, while edgesync removes a
 * guard only after its replacement is in place; it is done in two plans.
 */
export function checkAuthWithLive(
  spec: Readonly<Record<string, unknown>>,
  object: LiveObject,
): LiveProblem[] {
  const live = routesOf(object.spec);
  const oidcAfter = new Map<Record<string, unknown>, unknown>();
  const gaining: { index: number; route: Record<string, unknown> }[] = [];
  routesOf(spec).forEach((desired, index) => {
    const route = selected(desired, live);
    if (route === undefined || desired.oidc === undefined) return;
    oidcAfter.set(route, desired.oidc);
    if (isSet(desired.oidc) && !isSet(route.oidc)) gaining.push({ index, route });
  });
  const modulesAfter = (route: Record<string, unknown>): string[] =>
    AUTH_MODULES.filter((name) =>
      isSet(name === 'oidc' && oidcAfter.has(route) ? oidcAfter.get(route) : route[name]),
    );
  const problems: LiveProblem[] = [];
  for (const { index, route } of gaining) {
    const pointer = `/routes/${index}/oidc`;
    const others = modulesAfter(route).filter((name) => name !== 'oidc');
    if (others.length > 0) {
      problems.push({
        code: 'one_auth_module',
        pointer,
        message: `${describe(route)} has ${others.join(' and ')}; the service lets a route carry one of oauth, oidc and saml`,
      });
      continue;
    }
    const other = live.find((candidate) => candidate !== route && modulesAfter(candidate).length > 0);
    if (other !== undefined) {
      problems.push({
        code: 'one_auth_route',
        pointer,
        message: `${describe(other)} of this edge keeps ${modulesAfter(other).join(', ')}; the service lets one route per edge authenticate (oauth, oidc or saml)`,
      });
      continue;
    }
    const leaving = live.find((candidate) => candidate !== route && isSet(candidate.oidc));
    if (leaving !== undefined) {
      problems.push({
        code: 'module_order',
        pointer,
        message: `oidc moves here from ${describe(leaving)}: the service takes it on this route only once that one has none, and edgesync removes a guard only after its replacement is in place. Apply in two steps: first remove oidc from the other route, then add it here`,
      });
    }
  }
  return problems;
}
