/**
 * A PEM as the service returns it: LF line ends and exactly one trailing
 * newline, so a manifest's file with or without a final newline (or with
 * CRLF) compares equal to the live CA.
 */
export function canonicalPem(value: string): string {
  return `${value.replace(/\r\n?/g, '\n').replace(/\s+$/, '')}\n`;
}
