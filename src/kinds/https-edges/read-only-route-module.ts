import { isRecord } from '../../json-value.js';

/** Stands in for a secret of a read-only route module in LiveObject specs. */
export const REDACTED_SECRET = '(sensitive)';

/**
 * A route module that the spec gives no write endpoint (everything but
 * `oidc`), as read, except its secrets: `webhook_verification.secret` and
 * the `client_secret` of every OAuth provider. edgesync can never write these
 * modules, so their secrets serve no purpose in a spec and would only leak
 * into plans, logs and exports; the fingerprint still covers the raw value.
 */
export function readOnlyRouteModule(name: string, value: unknown): unknown {
  if (!isRecord(value)) return value;
  if (name === 'webhook_verification' && typeof value.secret === 'string') {
    return { ...value, secret: REDACTED_SECRET };
  }
  if (name === 'oauth' && isRecord(value.provider)) {
    const provider: Record<string, unknown> = {};
    for (const [key, settings] of Object.entries(value.provider)) {
      provider[key] =
        isRecord(settings) && typeof settings.client_secret === 'string'
          ? { ...settings, client_secret: REDACTED_SECRET }
          : settings;
    }
    return { ...value, provider };
  }
  return value;
}
