import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { KINDS } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/plan-changes.js';
import { planToJson } from '../../src/plan/render-json.js';
import { serializeSavedPlan, toSavedPlan } from '../../src/plan/saved-plan.js';
import { desiredState, entry, liveRule, liveState, marked, OWNER, POLICY } from '../plan/builders.js';

const SNAKE = /^[a-z0-9]+(_[a-z0-9]+)*$/;

/**
 * Keys of edgesync's own objects, below `value`. Not the keys of data it
 * carries: request bodies and field values (the service's or the user's),
 * fingerprints (IDs), `$sensitive`/`$createdBy` markers.
 */
function ownKeys(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) ownKeys(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      if (['body', 'before', 'after', 'fingerprints'].includes(key)) continue;
      ownKeys(item, out);
    }
  }
  return out;
}

function samplePlan() {
  const desired = desiredState([
    entry('ip_policy_rules', 'office', { cidr: '10.0.0.0/24', action: 'allow', ip_policy_id: POLICY }),
  ]);
  const live = liveState([
    liveRule('ipr_gone', { cidr: '10.9.0.0/24', action: 'deny', metadata: marked('gone') }),
  ]);
  return planChanges(desired, live, { kinds: KINDS, owner: OWNER, force: true });
}

describe('one casing for machines: snake_case', () => {
  it('in the plan JSON and the saved plan file', () => {
    const plan = samplePlan();

    const json = ownKeys(planToJson(plan));
    const saved = ownKeys(JSON.parse(serializeSavedPlan(toSavedPlan(plan, ['manifests']))));

    expect(json.filter((key) => !SNAKE.test(key))).toEqual([]);
    expect(saved.filter((key) => !SNAKE.test(key))).toEqual([]);
    expect(saved).toContain('manifest_paths');
  });

  it('in the field names of JSON logs, redaction still applied', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger({ destination });

    log.info({ durationMs: 12, inFlight: 'abandoned', apiKey: 'key-never-logged' }, 'stopped');

    const record = JSON.parse(lines.join('')) as Record<string, unknown>;
    expect(record).toMatchObject({ duration_ms: 12, in_flight: 'abandoned', api_key: '(sensitive)' });
    expect(Object.keys(record).filter((key) => !SNAKE.test(key))).toEqual([]);
    expect(lines.join('')).not.toContain('key-never-logged');
  });
});
