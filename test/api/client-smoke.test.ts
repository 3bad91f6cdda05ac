import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RequestBudget } from '../../src/api/request-budget.js';
import { type ScriptedServer, sendJson, startScriptedServer } from './scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('smoke', () => {
  it('gets', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { ok: 1 }));
    const api = createApiClient({ baseUrl: server.url, apiKey: 'k', budget: new RequestBudget() });
    const res = await api.request({ method: 'GET', path: '/x' });
    expect(res.body).toEqual({ ok: 1 });
  });
});
