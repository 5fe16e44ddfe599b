/**
 * Small in-place list edits for hot paths: Array.splice allocates the array of removed items on every call (even
 * when it removes none), and these lists change on every batch.
 */

/** Puts `item` at index `i` of `list` (0 <= i <= length), moving the later items up one. */
export function insertAt<T>(list: T[], i: number, item: T): void {
  let j = list.length;
  list.push(item);
  while (j > i) {
    list[j] = list[j - 1]!;
    j--;
  }
  list[i] = item;
}

/** Removes the item at index `i` of `list` (0 <= i < length), moving the later items down one. */
export function removeAt<T>(list: T[], i: number): void {
  const last = list.length - 1;
  for (let j = i; j < last; j++) list[j] = list[j + 1]!;
  list.pop();
}

/**
 * Sorts `list` in place by ascending `keyOf`, stably (equal keys keep their order), as Array.sort does but
 * without its scratch copy: for the short lists of hot paths (an insertion sort, quadratic on long ones).
 */
export function sortSmallBy<T>(list: T[], keyOf: (item: T) => number): void {
  for (let i = 1; i < list.length; i++) {
    const item = list[i]!;
    const k = keyOf(item);
    let j = i;
    while (j > 0 && keyOf(list[j - 1]!) > k) {
      list[j] = list[j - 1]!;
      j--;
    }
    list[j] = item;
  }
}
