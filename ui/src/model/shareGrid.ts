/** Finished records shown before SPSO, at most. */
const CONTEXT = 12;

/** Where the cells of one share-partition start and how many rows they take. */
export interface GridPlan {
  readonly first: number;
  readonly cols: number;
  readonly rows: number;
  /** Offsets of the window past the last row drawn. */
  readonly hidden: number;
}

/**
 * Which offsets to draw: from a few finished ones before SPSO to SPEO, in rows of `cols`, at most `maxRows` rows.
 * The first offset is a multiple of 10, so a record keeps its place while SPSO moves past the records before it.
 */
export function planGrid(spso: number, speo: number, cols: number, maxRows: number): GridPlan {
  const c = Math.max(4, cols);
  const context = Math.min(CONTEXT, Math.floor(c / 3));
  const first = Math.max(0, Math.floor((spso - context) / 10) * 10);
  const last = Math.max(speo, spso - 1);
  const need = Math.max(1, Math.ceil((last - first + 1) / c));
  const rows = Math.min(need, Math.max(1, maxRows));
  return { first, cols: c, rows, hidden: Math.max(0, last - (first + rows * c - 1)) };
}
