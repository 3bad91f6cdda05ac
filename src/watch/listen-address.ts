import { EdgesyncError } from '../errors.js';

export interface ListenAddress {
  readonly host: string;
  /** 0 asks the system for a free port. */
  readonly port: number;
}

/** Parses `--listen`: `127.0.0.1:9090`, `0.0.0.0:9090`, `[::1]:9090`, or `:9090` (every interface). */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65_535) {
    throw new EdgesyncError(
      'invalid_option',
      `--listen: expected HOST:PORT like 127.0.0.1:9090 (found "${value}")`,
    );
  }
  const host = match[1] ?? (match[2] === '' || match[2] === undefined ? '0.0.0.0' : match[2]);
  return { host, port };
}

/** `http://host:port`, with brackets around an IPv6 host. */
export function formatHttpUrl(address: ListenAddress): string {
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `http://${host}:${address.port}`;
}
