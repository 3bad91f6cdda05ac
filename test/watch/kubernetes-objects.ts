import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/** A Kubernetes object as written in a manifest: only the fields every object has are typed. */
export interface KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly [field: string]: unknown;
}

interface ValidatingModel {
  validate(): void;
}
type ModelClass = new (object: unknown) => ValidatingModel;

/**
 * Checks one object against the Kubernetes OpenAPI schema of its apiVersion
 * and kind with kubernetes-models (types, formats such as quantities, enums,
 * required fields). Returns the schema errors, or [] when it is valid. The
 * models do not refuse unknown fields, so tests that care about a field also
 * assert on it by name.
 */
export async function kubernetesSchemaErrors(object: KubernetesObject): Promise<string[]> {
  // kubernetes-models has one entry point per group/version: "v1" (core), "apps/v1", …
  const models = (await import(`kubernetes-models/${object.apiVersion}`)) as Record<
    string,
    ModelClass | undefined
  >;
  const Model = models[object.kind];
  if (!Model) return [`${object.apiVersion} ${object.kind}: no such kind in kubernetes-models`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [`${object.kind}/${object.metadata?.name}: ${(error as Error).message}`];
  }
}

/** Every document of a multi-document YAML text, as plain objects, empty documents left out. */
export function yamlDocuments(text: string): KubernetesObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw document.errors[0];
      return document.toJS() as KubernetesObject | null;
    })
    .filter((object): object is KubernetesObject => object !== null);
}

export interface Kustomization {
  readonly resources?: string[];
  readonly configMapGenerator?: {
    name: string;
    namespace?: string;
    options?: { disableNameSuffixHash?: boolean };
    files?: string[];
  }[];
}

export async function readKustomization(dir: string): Promise<Kustomization> {
  return parse(await readFile(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
}

/**
 * The objects of the resource files a kustomization lists, following
 * directories to their own kustomization.yaml. It reads the files as written
 * (no patches or generators are applied: the kustomizations here use none
 * but the configMapGenerator, which tests check on its own).
 */
export async function kustomizationResources(dir: string): Promise<KubernetesObject[]> {
  const objects: KubernetesObject[] = [];
  for (const resource of (await readKustomization(dir)).resources ?? []) {
    const path = join(dir, resource);
    if ((await stat(path)).isDirectory()) {
      objects.push(...(await kustomizationResources(path)));
    } else {
      objects.push(...yamlDocuments(await readFile(path, 'utf8')));
    }
  }
  return objects;
}

/** `KEY=PATH` or `PATH` of a configMapGenerator `files:` entry: the key and the file it reads. */
export function generatorFile(dir: string, entry: string): { key: string; path: string } {
  const equals = entry.indexOf('=');
  const source = equals === -1 ? entry : entry.slice(equals + 1);
  const key = equals === -1 ? (source.split('/').pop() ?? source) : entry.slice(0, equals);
  return { key, path: join(dir, source) };
}
