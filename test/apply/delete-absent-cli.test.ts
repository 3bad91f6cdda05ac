import { describe, expect, it } from 'vitest';
import {
  hostileServices,
  listedRule,
  manifestDirectories,
  pathOf,
  rulesManifest,
  runAgainst,
} from '../api/hostile-service.js';
import { sendJson } from '../api/scripted-server.js';

const serve = hostileServices();
const manifests = manifestDirectories();

const ruleId = (n: number): string => `ipr_${String(n).padStart(27, '0')}`;

describe('apply: a DELETE answered 404', () => {
  it('counts the delete as already absent, not deleted, in the summary and the JSON log', async () => {
    const dir = await manifests(rulesManifest({ a: '198.51.100.1/32' }));
    const listed = [
      listedRule(ruleId(1), 'a', '198.51.100.1/32', 'deny'),
      listedRule(ruleId(2), 'gone', '198.51.100.2/32', 'deny'),
    ];
    // The list still shows `gone`; by the time it is deleted, someone else has removed it.
    const server = await serve((request, response) => {
      if (request.method !== 'GET' || pathOf(request) !== '/ip_policy_rules') return false;
      sendJson(response, 200, { ip_policy_rules: listed, uri: '/ip_policy_rules', next_page_uri: null });
      return true;
    });

    const run = await runAgainst(server, ['apply', '--yes', '--log-format', 'json', '.'], { cwd: dir });

    expect(server.requests.filter((request) => request.method === 'DELETE').map(pathOf)).toEqual([
      `/ip_policy_rules/${ruleId(2)}`,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Apply complete: 0 created, 0 updated, 0 replaced, 0 deleted, 1 already absent, 0 failed, 0 skipped in /m,
    );
    const finished = run.stderr
      .split('\n')
      .filter((line) => line.includes('"msg":"action finished"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(finished).toEqual([
      expect.objectContaining({
        action: 'delete:ip_policy_rules.gone',
        id: ruleId(2),
        outcome: 'done',
        note: 'already absent',
      }),
    ]);
  });
});
