/** The pointer of the entry (`/kind/name`) a pointer lies in, or undefined above entry level. */
export function entryPointerOf(pointer: string): string | undefined {
  const kindEnd = pointer.indexOf('/', 1);
  if (kindEnd === -1) return undefined;
  const entryEnd = pointer.indexOf('/', kindEnd + 1);
  return entryEnd === -1 ? pointer : pointer.slice(0, entryEnd);
}
