/**
 * The replica sets of a partition reassignment, as Kafka computes them. Pure functions of broker id lists.
 * [metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentReplicas.java,
 * PartitionReassignmentRevert.java]
 */

/** What a reassignment in progress is doing: `replicas` = target followed by the replicas being removed. */
export interface ReassignmentReplicas {
  readonly removing: readonly number[];
  readonly adding: readonly number[];
  readonly replicas: readonly number[];
}

/** Members of `a` not in `b`, sorted (Kafka builds these from a TreeSet). */
function difference(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set(a.filter((x) => !b.includes(x)))].sort((x, y) => x - y);
}

/**
 * Moving from `current` to `target`: removing = current − target, adding = target − current, and the
 * replica list while it runs = target, then the ones being removed. [PartitionReassignmentReplicas constructor]
 */
export function reassignmentReplicas(current: readonly number[], target: readonly number[]): ReassignmentReplicas {
  const removing = difference(current, target);
  return { removing, adding: difference(target, current), replicas: [...target, ...removing] };
}

export function isReassignmentInProgress(r: { readonly removing: readonly number[]; readonly adding: readonly number[] }): boolean {
  return r.removing.length > 0 || r.adding.length > 0;
}

/**
 * The partition after the reassignment, once it can complete: the ISR without the removed replicas must still
 * hold someone and contain every replica of the target. Null while it cannot.
 * [PartitionReassignmentReplicas `maybeCompleteReassignment`]
 */
export function maybeCompleteReassignment(r: ReassignmentReplicas, targetIsr: readonly number[]): { replicas: number[]; isr: number[] } | null {
  if (!isReassignmentInProgress(r)) return null;
  let isr = [...targetIsr];
  let replicas = [...r.replicas];
  if (r.removing.length > 0) {
    isr = isr.filter((x) => !r.removing.includes(x));
    if (isr.length === 0) return null;
    replicas = replicas.filter((x) => !r.removing.includes(x));
    if (replicas.length === 0) return null;
  }
  if (!replicas.every((x) => isr.includes(x))) return null;
  return { replicas, isr };
}

/** The replicas before the reassignment: everything but the ones it is adding. [`originalReplicas`] */
export function originalReplicas(r: ReassignmentReplicas): number[] {
  return r.replicas.filter((x) => !r.adding.includes(x));
}

/**
 * Cancelling a reassignment (kafka-reassign-partitions --cancel): back to the original replicas, and the ISR
 * without the replicas being added. If that leaves no ISR, the first original replica is put in it alone: an
 * unclean leader election, which the caller may only allow when the topic enables it.
 * [PartitionReassignmentRevert.java]
 */
export function reassignmentRevert(r: ReassignmentReplicas, isr: readonly number[]): { replicas: number[]; isr: number[]; unclean: boolean } {
  const replicas = originalReplicas(r);
  const kept = isr.filter((x) => !r.adding.includes(x));
  if (kept.length > 0) return { replicas, isr: kept, unclean: false };
  if (replicas.length === 0) throw new Error('Invalid replica assignment: addingReplicas contains all replicas.');
  return { replicas, isr: [replicas[0]!], unclean: true };
}
