import { Writable } from 'node:stream';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/apply/apply-result.js';
import { formatUnappliedActions } from '../../src/apply/progress-reporter.js';
import { createLogger } from '../../src/cli/logger.js';
import { manifestErrorsToSarif } from '../../src/cli/manifest-errors-sarif.js';
import { ManifestError } from '../../src/manifest/manifest-error.js';
import { OPERATIONS, type Plan, type ResourceChange } from '../../src/plan/plan.js';
import { renderPlanJson } from '../../src/plan/render-json.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import { isVisibleText, visibleJson, visibleText } from '../../src/visible-text.js';
import type { DaemonStatus, DaemonStatusJson } from '../../src/watch/daemon-status.js';
import { WatchMetrics } from '../../src/watch/watch-metrics.js';
import { startWatchServer } from '../../src/watch/watch-server.js';
import { propertyRuns } from '../support/property-runs.js';

/** What may never reach output raw (visible-text.ts), spelled out again here so the test does not trust the module. */
const HOSTILE = [
  '\u0000',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u001b[31m',
  '\u001b]8;;http://x\u0007',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u2028',
  '\u2029',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069',
];
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The renderer's own colour codes, taken out before looking for raw controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC of the renderer's colour codes.
const OWN_COLOUR = /\u001b\[\d+m/g;

/** Strings mixing hostile characters with ordinary text, markdown and JSON specials, and non-Latin script. */
const userText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...HOSTILE),
    fc.constantFrom('a', 'Z', '0', ' ', '|', '`', '"', '\\', '<', '*', 'é', 'ش', '😀'),
  ),
  maxLength: 24,
});

const location = fc.record({ file: userText, line: fc.nat({ max: 999 }), column: fc.nat({ max: 99 }) });

const change: fc.Arbitrary<ResourceChange> = fc.record(
  {
    address: userText,
    op: fc.constantFrom(...OPERATIONS),
    kind: fc.constant('ip_policy_rules' as const),
    name: userText,
    id: userText,
    changes: fc.array(
      fc.record(
        {
          path: userText,
          before: fc.oneof(userText, fc.dictionary(userText, userText, { maxKeys: 2 })),
          after: fc.oneof(userText, fc.array(userText, { maxLength: 2 })),
          sensitive: fc.boolean(),
          forcesReplace: fc.boolean(),
        },
        { requiredKeys: ['path', 'sensitive', 'forcesReplace'] },
      ),
      { maxLength: 3 },
    ),
    reason: userText,
    source: location,
    actionKeys: fc.constant([]),
  },
  { requiredKeys: ['address', 'op', 'kind', 'name', 'changes', 'reason', 'actionKeys'] },
);

const plan: fc.Arbitrary<Plan> = fc
  .record({
    owner: userText,
    changes: fc.array(change, { maxLength: 4 }),
    errors: fc.array(fc.record({ code: fc.constant('unique_key'), message: userText, source: location }), {
      maxLength: 2,
    }),
    warnings: fc.array(fc.record({ code: fc.constant('warning'), message: userText }), { maxLength: 2 }),
    refusal: fc.option(fc.record({ code: fc.constant('max-destroy' as const), message: userText }), {
      nil: undefined,
    }),
  })
  .map(({ refusal, ...rest }) => ({
    formatVersion: 1 as const,
    actions: [],
    summary: {
      create: 1,
      update: 0,
      replace: 0,
      delete: 0,
      adopt: 0,
      'put-module': 0,
      'delete-module': 0,
      unchanged: 0,
      unmanaged: 0,
    },
    desiredHash: 'h',
    fingerprints: {},
    ...rest,
    ...(refusal === undefined ? {} : { refusal }),
  }));

/** Every output line free of raw controls and bidi overrides (newlines are the renderer's own line breaks). */
function expectVisible(output: string): void {
  const bad = [...output].find((character) => RAW_UNSAFE.test(character));
  expect(bad === undefined ? undefined : `U+${bad.codePointAt(0)?.toString(16)}`).toBeUndefined();
}

/** The same plan with every string replaced by a tame one of the same length: the line count must not move. */
function tamed(value: Plan): Plan {
  const fixed = new Set(['op', 'kind', 'code']);
  return JSON.parse(JSON.stringify(value), (key, item: unknown) =>
    typeof item === 'string' && !fixed.has(key) ? 'x'.repeat(item.length) : item,
  ) as Plan;
}

describe('no control or bidi character from user data reaches any output raw (fast-check over every renderer)', () => {
  it('visibleText escapes each hostile character visibly and leaves other text alone', () => {
    expect(visibleText('bell\u0007 esc\u001b[2J nl\nx \u202eevil \u2066 del\u007f c1\u0085 tab\t')).toBe(
      'bell\\x07 esc\\x1b[2J nl\\nx \\u202eevil \\u2066 del\\x7f c1\\x85 tab\\t',
    );
    expect(visibleText('café ش 😀 | `x`')).toBe('café ش 😀 | `x`');
    fc.assert(
      fc.property(userText, (text) => isVisibleText(visibleText(text))),
      { numRuns: propertyRuns({ small: 100, large: 1000 }) },
    );
  });

  it('plan text (with and without colour) and markdown: no raw control, and a newline never adds a line', () => {
    fc.assert(
      fc.property(plan, (value) => {
        const text = renderPlanText(value);
        expectVisible(text);
        expect(text.split('\n')).toHaveLength(renderPlanText(tamed(value)).split('\n').length);
        const coloured = renderPlanText(value, { color: true }).replace(OWN_COLOUR, '');
        expectVisible(coloured);
        expectVisible(renderPlanMarkdown(value));
      }),
      { numRuns: propertyRuns({ small: 60, large: 300 }) },
    );
  });

  it('plan JSON: no raw control, and the data parses back unchanged', () => {
    fc.assert(
      fc.property(plan, (value) => {
        const json = renderPlanJson(value);
        expectVisible(json);
        const parsed = JSON.parse(json) as { owner: string; changes: { address: string; reason: string }[] };
        expect(parsed.owner).toBe(value.owner);
        expect(parsed.changes.map((item) => [item.address, item.reason])).toEqual(
          value.changes.map((item) => [item.address, item.reason]),
        );
      }),
      { numRuns: propertyRuns({ small: 50, large: 200 }) },
    );
  });

  it('manifest errors: file:line:col stays one line in text; JSON and SARIF hold no raw control', () => {
    fc.assert(
      fc.property(location, userText, userText, (where, path, detail) => {
        const error = new ManifestError('schema', where, path, detail);

        const line = error.format();
        expectVisible(line);
        expect(line.split('\n')).toHaveLength(1);
        expect(line).toMatch(/^.*:\d+:\d+: /);
        expectVisible(visibleJson([error.toJSON()], 2));
        expectVisible(
          visibleJson(
            manifestErrorsToSarif([error], (file) => file),
            2,
          ),
        );
        expect((JSON.parse(visibleJson(error.toJSON())) as { message: string }).message).toBe(detail);
      }),
      { numRuns: propertyRuns({ small: 60, large: 300 }) },
    );
  });

  it('apply failures: one line per action, nothing raw', () => {
    fc.assert(
      fc.property(userText, userText, location, (key, message, source) => {
        const result = {
          actions: [{ key, outcome: 'failed', source, error: { message, serviceCode: 'invalid_field' } }],
        } as unknown as ApplyResult;

        const lines = formatUnappliedActions(result);

        expect(lines).toHaveLength(1);
        for (const line of lines) {
          expectVisible(line);
          expect(line).not.toContain('\n');
        }
      }),
      { numRuns: propertyRuns({ small: 50, large: 200 }) },
    );
  });

  it('logs, JSON and pretty: no raw control in any field or error message', async () => {
    await fc.assert(
      fc.asyncProperty(userText, userText, async (name, message) => {
        for (const format of ['json', 'pretty'] as const) {
          let written = '';
          const destination = new Writable({
            write(chunk: Buffer, _encoding, callback) {
              written += chunk.toString();
              callback();
            },
          });
          const logger = createLogger({ format, destination });

          logger.warn({ name, nested: { description: name }, err: new Error(message) }, 'action not applied');
          logger.flush();

          expectVisible(written);
          if (format === 'json') {
            const record = JSON.parse(written) as { name: string; err: { message: string } };
            expect(record.name).toBe(name);
            expect(record.err.message).toBe(message);
          }
        }
      }),
      { numRuns: propertyRuns({ small: 25, large: 100 }) },
    );
  });

  it('/status and /readyz of the daemon: no raw control', async () => {
    let status: DaemonStatus | undefined;
    const server = await startWatchServer({
      listen: { host: '127.0.0.1', port: 0 },
      registry: new WatchMetrics().registry,
      status: () => status as DaemonStatus,
      logger: pino({ level: 'silent' }),
    });
    try {
      await fc.assert(
        fc.asyncProperty(userText, userText, location, async (reason, message, where) => {
          status = {
            mode: 'enforce',
            owner: 'default',
            paths: [where.file],
            ready: false,
            notReadyReason: reason,
            manifestsValid: false,
            manifestErrors: [{ ...where, path: message, message }],
            desiredHash: null,
            lastReconcile: null,
            lastSuccessAt: null,
            lastError: { code: 'api', message, at: '2026-01-01T00:00:00Z' },
            lastPlan: null,
            lastApply: null,
          };

          const body = await (await fetch(`${server.url}/status`)).text();
          const ready = await (await fetch(`${server.url}/readyz`)).text();

          expectVisible(body);
          expect((JSON.parse(body) as DaemonStatusJson).last_error?.message).toBe(message);
          expectVisible(ready.trimEnd());
          expect(ready.trimEnd().split('\n')).toHaveLength(1);
        }),
        { numRuns: propertyRuns({ small: 15, large: 50 }) },
      );
    } finally {
      await server.close();
    }
  });
});
