/**
 * The flag naming the IDs to export of a kind the API cannot list, from the
 * kind's title (`TCP edge` → `--tcp-edge`, parsed into `tcpEdge`): the
 * registration declares it and the command reads it, each from here.
 */
export function exportIdFlag(title: string): { readonly long: string; readonly attribute: string } {
  const words = title
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  return {
    long: `--${words.join('-')}`,
    attribute: words
      .map((word, index) => (index === 0 ? word : word[0]?.toUpperCase() + word.slice(1)))
      .join(''),
  };
}
