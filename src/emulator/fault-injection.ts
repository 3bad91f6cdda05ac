import { ServiceError } from './service-error.js';

/** Settings for injected failures; shares are 0–1, drawn from `random`. */
export interface FaultSettings {
  readonly faultRate: number;
  readonly dropRate: number;
  readonly random: () => number;
}

/** The 500 or 503 a faulted request answers with, or null to serve it normally. */
export function drawFault(settings: FaultSettings): ServiceError | null {
  if (settings.faultRate <= 0 || settings.random() >= settings.faultRate) return null;
  return settings.random() < 0.5
    ? new ServiceError(500, 'internal_error', 'injected fault: internal error')
    : new ServiceError(503, 'service_unavailable', 'injected fault: service unavailable');
}

const WRITE_METHODS: readonly string[] = ['POST', 'PATCH', 'PUT', 'DELETE'];

/** True when this write, already applied, should lose its response (the socket is destroyed). */
export function drawDrop(settings: FaultSettings, method: string): boolean {
  if (!WRITE_METHODS.includes(method) || settings.dropRate <= 0) return false;
  return settings.random() < settings.dropRate;
}
