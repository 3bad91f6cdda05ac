import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/seed.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';
import { ROOT } from '../support/edgesync-cli.js';
import { API_KEY, forwardTo, hostileServices, manifestDirectories, runAgainst } from './hostile-service.js';
import { sendServiceError } from './scripted-server.js';

const serve = hostileServices();
const manifests = manifestDirectories();

/** A secret with a quote and a backslash: JSON writes it differently from the value. */
const SECRET = 'oidc-"s3cret"\\-71c2d9e8a4';
const MANIFEST = `version: 1
https_edges:
  web:
    id: edghts_WebEdge00000000000000000001
    hostports: [web.example.com:443]
    routes:
      - id: edghtsrt_WebAppRoute0000000000000001
        oidc:
          issuer: https://accounts.example.com
          client_id: edge-app
          client_secret: { env: OIDC_CLIENT_SECRET }
          scopes: [openid]
`;

/** Every way the secret can be written: as is, inside a JSON string, inside a JSON string in a JSON string. */
function writtenForms(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  return [secret, once, JSON.stringify(once).slice(1, -1)];
}

describe('edgesync against a service that echoes the request body in its errors', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('prints and logs the 400 with the OIDC client secret and the API key scrubbed', async () => {
    emulator = await startEmulator({
      apiKey: API_KEY,
      seed: await loadSeedFile(join(ROOT, 'examples', 'emulator-seed.yaml')),
    });
    const target = emulator.url;
    const dir = await manifests(MANIFEST);
    const server = await serve((request, response) => {
      if (request.method === 'PUT' && request.url.endsWith('/oidc')) {
        const echo = `invalid module ${request.body} (key ${request.headers.authorization})`;
        sendServiceError(response, 400, `invalid_field ${request.body}`, echo, {
          field: 'client_secret',
          sent: JSON.parse(request.body) as unknown,
          [request.body]: 'a key',
        });
        return true;
      }
      forwardTo(target, request, response);
      return true;
    });

    const run = await runAgainst(
      server,
      ['apply', '--yes', '--log-format', 'json', '--log-level', 'debug', '.'],
      { cwd: dir, env: { OIDC_CLIENT_SECRET: SECRET } },
    );

    const put = server.requests.find((request) => request.method === 'PUT');
    expect(put?.body).toContain(JSON.stringify(SECRET));
    expect(run.code).toBe(1);
    // The final error line and the JSON log both carry the service's message, scrubbed.
    expect(run.stderr).toMatch(
      /\.oidc: failed: invalid module \{.*"client_secret":"\[REDACTED\]".*\} \(key Bearer \[REDACTED\]\) \(HTTP 400/,
    );
    expect(run.stderr).toMatch(/"error":\{"code":"api_error","message":"invalid module .*\[REDACTED\]/);
    for (const form of [...writtenForms(SECRET), API_KEY]) {
      expect(run.stderr).not.toContain(form);
      expect(run.stdout).not.toContain(form);
    }
  });
});
