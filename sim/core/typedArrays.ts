/** Typed columns that grow: the engine's and the disk's bookkeeping live in typed arrays the collector never walks. */

type Column = Int32Array | Uint8Array | Float64Array;

/** A copy of `a` with room for `length` entries (the rest zero), of the same element type. */
export function widened<T extends Column>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a);
  return b;
}
