/**
 * The attribute commander parses a kind's export ID flag into
 * (Kind.exportIdFlag: `--tcp-edge` → `tcpEdge`): the registration declares
 * the flag and the command reads the attribute, each from the kind.
 */
export function exportIdAttribute(flag: string): string {
  return flag
    .replace(/^--/, '')
    .split('-')
    .map((word, index) => (index === 0 ? word : (word[0]?.toUpperCase() ?? '') + word.slice(1)))
    .join('');
}
