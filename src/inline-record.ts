/**
 * Plain objects with every property stored in the object itself. One built
 * by `{}` and assignments keeps its first four properties there and the rest
 * in a separate property array (30 to 60 bytes more per object); a spread
 * copy of an object that JSON.parse made keeps all of its keys inline. The
 * request bodies (5 keys) and changes (8) of a plan of 100,000 creates held
 * about 6 MB of property arrays that way (docs/performance.md).
 */
const shapes = new Map<string, Readonly<Record<string, null>>>();

/** Key lists kept; the kinds' fields make a few dozen. Bounded all the same: once full it starts again. */
const MAX_SHAPES = 1000;

/** A plain object with `keys`, in that order, each set to the value at the same index of `values`. */
export function inlineRecord(keys: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const id = keys.join('\0');
  let shape = shapes.get(id);
  if (shape === undefined) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shape = JSON.parse(JSON.stringify(Object.fromEntries(keys.map((key) => [key, null])))) as Record<
      string,
      null
    >;
    shapes.set(id, shape);
  }
  const record: Record<string, unknown> = { ...shape };
  for (let index = 0; index < keys.length; index += 1) record[keys[index] as string] = values[index];
  return record;
}
