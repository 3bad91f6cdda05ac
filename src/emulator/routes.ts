import { acceptFamilyBodies } from './body-envelopes.js';
import type { EmulatedCollection, EmulatorPart } from './emulated-collection.js';
import type { RouteDefinition } from './handler.js';

/** What the emulator serves: every collection and endpoint of the parts it is given. */
export interface ServedParts {
  /** What other collections reference first, so that a seed's references resolve; otherwise in part order. */
  readonly collections: readonly EmulatedCollection[];
  /** Every endpoint, taking the family's bodies as well as the bare ones. */
  readonly routes: readonly RouteDefinition[];
}

/** The parts and the parts they require, each once, a required part before the first that requires it. */
function flatten(parts: readonly EmulatorPart[]): EmulatorPart[] {
  const ordered: EmulatorPart[] = [];
  const visit = (part: EmulatorPart) => {
    if (ordered.includes(part)) return;
    for (const required of part.requires ?? []) visit(required);
    ordered.push(part);
  };
  for (const part of parts) visit(part);
  return ordered;
}

/**
 * Everything `parts` (the emulator parts of a registry's kinds) serve. Two
 * parts may not describe one collection name, and a reference must name a
 * collection that is served.
 */
export function serveParts(parts: readonly EmulatorPart[]): ServedParts {
  const flat = flatten(parts);
  const all = flat.flatMap((part) => part.collections);
  const names = new Set<string>();
  for (const collection of all) {
    if (names.has(collection.name))
      throw new Error(`two emulator parts describe the collection ${collection.name}`);
    names.add(collection.name);
  }
  const referenced = new Set<string>();
  for (const collection of all) {
    for (const { target } of collection.references ?? []) {
      if (!names.has(target)) {
        throw new Error(`${collection.name} references ${target}, which no emulator part describes`);
      }
      referenced.add(target);
    }
  }
  const collections = [
    ...all.filter((collection) => referenced.has(collection.name)),
    ...all.filter((collection) => !referenced.has(collection.name)),
  ];
  return { collections, routes: acceptFamilyBodies(flat.flatMap((part) => part.routes)) };
}
