import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import { ROOT } from './edgesync-cli.js';

const schema = (name: string): object => JSON.parse(readFileSync(join(ROOT, 'schemas', name), 'utf8'));
// Formats are not checked by ajv here (no ajv-formats): the timestamp is checked by Date.parse below.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
ajv.addSchema(schema('plan.schema.json'));
const validateLine = ajv.compile(schema('ui.schema.json'));

/** One line of the machine-readable UI (`apply --format json`, `reconcile --format json`). */
export interface UiLine {
  readonly type: string;
  readonly level: string;
  readonly message: string;
  readonly [field: string]: unknown;
}

/** stdout as the UI's lines: every line one JSON object, each valid against schemas/ui.schema.json, with a real timestamp. */
export function uiLines(stdout: string): UiLine[] {
  expect(stdout.endsWith('\n'), stdout).toBe(true);
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((text) => {
      const line = JSON.parse(text) as UiLine;
      expect(validateLine(line), `${text}\n${JSON.stringify(validateLine.errors)}`).toBe(true);
      expect(Number.isNaN(Date.parse(String(line.timestamp))), text).toBe(false);
      return line;
    });
}
