import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MANIFEST_ERROR_CODES } from '../../src/manifest/manifest-error.js';
import { readManifestSchema } from '../../src/manifest/manifest-schema.js';

function propertyNames(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) propertyNames(item, found);
  } else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value !== null && typeof value === 'object') {
        for (const name of Object.keys(value)) found.add(name);
      }
      propertyNames(value, found);
    }
  }
  return found;
}

describe('docs/manifest.md', () => {
  const docs = readFileSync('docs/manifest.md', 'utf8');
  const schema = readManifestSchema();

  it.each([...propertyNames(schema)].sort())('documents the schema property %s', (name) => {
    expect(docs).toContain(`\`${name}\``);
  });

  it.each([...MANIFEST_ERROR_CODES])('documents the error code %s', (code) => {
    expect(docs).toContain(`\`${code}\``);
  });

  it('gives every schema property a description', () => {
    const undocumented: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
      for (const [name, property] of Object.entries(properties)) {
        if (typeof property.description !== 'string') undocumented.push(`${path}.${name}`);
        visit(property, `${path}.${name}`);
      }
      for (const [key, value] of Object.entries(node))
        if (key !== 'properties') visit(value, `${path}/${key}`);
    };

    visit(schema, '#');

    expect(undocumented).toEqual([]);
  });
});
