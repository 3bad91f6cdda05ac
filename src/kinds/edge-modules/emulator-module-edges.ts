import { checkObject } from '../../emulator/field-rules.js';
import { ServiceError } from '../../emulator/service-error.js';
import { EDGE_DESCRIPTION, EDGE_METADATA } from './emulator-hostports.js';

// TCP and TLS edges: the spec manages only their modules. The emulator keeps
// the edges minimal (description, metadata, hostports) and serves create,
// list, get and delete so tests and demos can make them.

/** 404 module_not_set: GET or DELETE of a module the edge does not have. */
export function moduleNotSet(module: string, id: string): ServiceError {
  return new ServiceError(404, 'module_not_set', `${module} is not set on edge ${id}`);
}

/** The edges themselves: PATCH changes only description and metadata. */
export function moduleEdgeUpdate(_record: unknown, body: unknown): Readonly<Record<string, unknown>> {
  return checkObject(body, { description: EDGE_DESCRIPTION, metadata: EDGE_METADATA });
}
