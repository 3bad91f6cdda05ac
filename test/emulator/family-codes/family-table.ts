import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EmulatorVariants } from '../../../src/emulator/emulator-variants.js';
import type { FamilyRule } from '../../../src/emulator/family-rule.js';
import {
  type EmulatorOptions,
  type EmulatorSeed,
  type RunningEmulator,
  startEmulator,
} from '../../../src/emulator/server.js';
import { loadDesiredState } from '../../../src/manifest/load-desired-state.js';
import { BUILT_IN_LOAD } from '../../support/built-in-load.js';
import { familyRules } from './family-rules.js';

/**
 * The family's error catalogue as tables, one per resource: a request per
 * rule of the catalogue's rows, sent to the emulator in family mode (the
 * answer's `ERR_NGROK_<n>`) and in words mode (the rule's word), and, for a
 * rule `validate` applies too (FamilyRule.static), a manifest it refuses.
 * test/emulator/family-catalogue.test.ts checks that every rule has a case.
 */
export interface FamilyRequest {
  readonly method: string;
  /** `{name}` is replaced by what the table's `prepare` returned. */
  readonly path: string;
  /** JSON, or a string sent as it is; `{name}` is replaced in both. */
  readonly body?: unknown;
  /** Headers changed from the defaults (the key, Service-Version 2, JSON content type): null removes one. */
  readonly headers?: Readonly<Record<string, string | null>>;
  /** Sends half of the body, then ends the sending side: a body cut short. */
  readonly cutShort?: boolean;
  /** Requests sent first, whose answers are not checked (the first of two creates). */
  readonly before?: readonly FamilyRequest[];
}

/** A manifest `validate` refuses, and every problem it reports: `code line:column path`, one a line. */
export interface ValidateCase {
  readonly yaml: string;
  readonly files?: Readonly<Record<string, string>>;
  readonly expected: string;
}

export interface FamilyCase {
  /** The family's number the answer carries, and the rule's row. */
  readonly code: number;
  readonly name: string;
  readonly variants?: Partial<EmulatorVariants>;
  /** What the emulator is started with beyond the table's seed (a budget). */
  readonly options?: Pick<EmulatorOptions, 'rateLimit'>;
  readonly request: FamilyRequest;
  /** `details.field`, where one field is at fault. */
  readonly field?: string;
  readonly validate?: ValidateCase;
}

/** The answer of one request: status and body. */
export interface FamilyAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response JSON
  readonly body: any;
}

export type Caller = (method: string, path: string, body?: unknown) => Promise<FamilyAnswer>;

export interface FamilyTable {
  /** The catalogue's heading (docs/family-errors.md, without `## `). */
  readonly section: string;
  readonly seed: EmulatorSeed;
  /** Creates what the cases name; returns the values of their `{name}` placeholders. */
  readonly prepare?: (call: Caller) => Promise<Readonly<Record<string, string>>>;
  readonly cases: readonly FamilyCase[];
}

function fill(text: string, ids: Readonly<Record<string, string>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => ids[key] ?? whole);
}

function bodyText(body: unknown, ids: Readonly<Record<string, string>>): string | undefined {
  if (body === undefined) return undefined;
  return fill(typeof body === 'string' ? body : JSON.stringify(body), ids);
}

function parsed(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

/** The request through node:http, which (unlike fetch) sends a GET's body and leaves out any header. */
function send(
  emulator: RunningEmulator,
  asked: FamilyRequest,
  ids: Readonly<Record<string, string>>,
): Promise<FamilyAnswer> {
  const body = bodyText(asked.body, ids);
  const headers: Record<string, string> = {
    authorization: `Bearer ${emulator.apiKey}`,
    'service-version': '2',
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  for (const [name, value] of Object.entries(asked.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  if (asked.cutShort) return sendCutShort(emulator, asked.method, fill(asked.path, ids), headers, body ?? '');
  return new Promise((resolve, reject) => {
    const sent = request(
      `${emulator.url}${fill(asked.path, ids)}`,
      {
        method: asked.method,
        headers:
          body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: parsed(text) }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** Half the body after a Content-Length for all of it, then the end of the sending side. */
function sendCutShort(
  emulator: RunningEmulator,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>>,
  body: string,
): Promise<FamilyAnswer> {
  const { hostname, port } = new URL(emulator.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true }, () => {
      const lines = Object.entries({ ...headers, host: `${hostname}:${port}` }).map(
        ([name, value]) => `${name}: ${value}`,
      );
      socket.write(
        `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      socket.end(body.slice(0, Math.floor(body.length / 2)));
    });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', rest = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1] ?? 0), body: parsed(rest) });
    });
  });
}

/** The rule of `section` that answers `code`: there must be exactly one. */
export function ruleOf(rules: readonly FamilyRule[], section: string, code: number): FamilyRule {
  const found = rules.filter((rule) => rule.sections.includes(section) && rule.numbers.includes(code));
  if (found.length !== 1) throw new Error(`${found.length} rules answer ${section} ${code}`);
  return found[0] as FamilyRule;
}

interface Served {
  readonly emulator: RunningEmulator;
  readonly ids: Readonly<Record<string, string>>;
}

/** The validate problems of a manifest, `code line:column path` a line, or 'ok'. */
export async function validateManifest(root: string, name: string, manifest: ValidateCase): Promise<string> {
  const dir = join(root, name.replace(/[^A-Za-z0-9]+/g, '-'));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'manifest.yaml'), manifest.yaml);
  for (const [file, text] of Object.entries(manifest.files ?? {})) await writeFile(join(dir, file), text);
  const result = await loadDesiredState(['.'], { ...BUILT_IN_LOAD, cwd: dir, env: {} });
  if (result.ok) return 'ok';
  return result.errors.map((error) => `${error.code} ${error.line}:${error.column} ${error.path}`).join('\n');
}

/**
 * The table's tests: each case against an emulator in each style, started
 * once per set of variants and options (refused requests change nothing, so
 * cases share one), and `validate` on each static case's manifest.
 */
export function describeFamilyTable(table: FamilyTable): void {
  describe(table.section, () => {
    const started = new Map<string, Promise<Served>>();
    let root: string | undefined;

    afterAll(async () => {
      for (const served of started.values()) await (await served).emulator.close();
      if (root !== undefined) await rm(root, { recursive: true, force: true });
    });

    function serve(style: 'family' | 'words', c: FamilyCase): Promise<Served> {
      const key = JSON.stringify([style, c.variants ?? {}, c.options ?? {}]);
      let served = started.get(key);
      if (served === undefined) {
        served = (async () => {
          const emulator = await startEmulator({
            seed: table.seed,
            errorCodes: style,
            variants: c.variants ?? {},
            ...(c.options ?? {}),
          });
          const call: Caller = (method, path, body) => send(emulator, { method, path, body }, {});
          return { emulator, ids: (await table.prepare?.(call)) ?? {} };
        })();
        started.set(key, served);
      }
      return served;
    }

    it.each(table.cases.map((c) => [c.code, c.name, c] as const))(
      'ERR_NGROK_%i: %s',
      async (_code, _name, c) => {
        const rule = ruleOf(await familyRules(), table.section, c.code);

        for (const style of ['family', 'words'] as const) {
          const { emulator, ids } = await serve(style, c);
          for (const first of c.request.before ?? []) await send(emulator, first, ids);
          const answer = await send(emulator, c.request, ids);

          expect([style, answer.status, answer.body?.error_code]).toEqual([
            style,
            rule.status,
            style === 'family' ? `ERR_NGROK_${c.code}` : rule.word,
          ]);
          expect(answer.body.details.field).toBe(c.field);
          expect(answer.body.msg).toEqual(expect.any(String));
        }
      },
    );

    const statics = table.cases.filter((c) => c.validate !== undefined);
    it.runIf(statics.length > 0).each(statics.map((c) => [c.code, c.name, c] as const))(
      'validate refuses ERR_NGROK_%i: %s',
      async (code, name, c) => {
        root ??= await mkdtemp(join(tmpdir(), 'edgesync-family-table-'));

        const found = await validateManifest(root, `${code}-${name}`, c.validate as ValidateCase);

        expect(found).toBe(c.validate?.expected);
      },
    );
  });
}

/** A well-formed ID of `prefix` that reads as `name`: the name padded with zeros to the 27 characters of an ID. */
export function fixedId(prefix: string, name: string): string {
  return `${prefix}${name.padEnd(27, '0').slice(0, 27)}`;
}
