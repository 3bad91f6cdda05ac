import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/server.js';

/** A test's handle on one emulator: plain fetch with the key and version headers. */
export interface EmulatorHandle {
  readonly emulator: RunningEmulator;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<CallResult>;
}

export interface CallResult {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response JSON
  readonly body: any;
}

export async function openEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const emulator = await startEmulator(options);
  return {
    emulator,
    async call(method, path, body, headers = {}) {
      const url = path.startsWith('http') ? path : `${emulator.url}${path}`;
      const response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${emulator.apiKey}`,
          'service-version': '2',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
    },
  };
}
