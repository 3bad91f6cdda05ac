import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runEdgesyncInProcess } from '../support/edgesync-cli.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const FACTS = {
  edgesync: VERSION,
  node: process.versions.node,
  platform: process.platform,
  arch: process.arch,
};
/** Nothing listens on port 9 here: doctor reports the URL and stops. */
const UNREACHABLE = { EDGE_API_URL: 'http://127.0.0.1:9', EDGE_API_KEY: 'key' };

describe("edgesync's version, Node's and the platform, wherever a support ticket looks", () => {
  it('edgesync version: one fact a line', async () => {
    const run = await runEdgesyncInProcess(['version']);

    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `edgesync ${VERSION}\nnode ${FACTS.node}\nplatform ${FACTS.platform} ${FACTS.arch}\n`,
    );
  });

  it('edgesync version --format json: the same facts as one object', async () => {
    const run = await runEdgesyncInProcess(['version', '--format', 'json']);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(FACTS);
  });

  it('doctor says them first, in text and as `build` in JSON, even when the service is out of reach', async () => {
    const text = await runEdgesyncInProcess(['doctor'], { env: UNREACHABLE });
    const json = await runEdgesyncInProcess(['doctor', '--format', 'json'], { env: UNREACHABLE });

    expect(text.stdout.split('\n')[0]).toBe(
      `edgesync ${VERSION} (node ${FACTS.node}, ${FACTS.platform} ${FACTS.arch})`,
    );
    expect(JSON.parse(json.stdout).build).toEqual(FACTS);
  });
});
