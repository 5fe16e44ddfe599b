/**
 * Where a consumer starts when it has no valid position: auto.offset.reset.
 * [clients/.../consumer/internals/SubscriptionState.java `resetStrategy`, OffsetFetcherUtils.java;
 *  clients/.../consumer/OffsetResetStrategy / AutoOffsetResetStrategy.java]
 */
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../../protocol';

export type AutoOffsetReset = 'earliest' | 'latest' | 'none';

/** What a ListOffsets lookup asks for. */
export type ResetTarget = { readonly kind: 'earliest' } | { readonly kind: 'latest' } | { readonly kind: 'timestamp'; readonly timestampMs: number };

/** The reset a partition gets under auto.offset.reset; null for `none` (NoOffsetForPartitionException). */
export function resetTargetFor(strategy: AutoOffsetReset): ResetTarget | null {
  if (strategy === 'none') return null;
  return { kind: strategy };
}

/** The ListOffsets timestamp of a target: -2 earliest, -1 latest, else a time in ms. */
export function listOffsetsTimestamp(t: ResetTarget): number {
  return t.kind === 'earliest' ? EARLIEST_TIMESTAMP : t.kind === 'latest' ? LATEST_TIMESTAMP : t.timestampMs;
}

export function describeTarget(t: ResetTarget): string {
  return t.kind === 'timestamp' ? `timestamp ${t.timestampMs}` : t.kind;
}

/**
 * OFFSET_OUT_OF_RANGE applies only if the partition is still at the offset that was fetched: a seek or a
 * reset since then already moved it. [clients/.../consumer/internals/FetchCollector.java `handleInitializeErrors`]
 */
export function outOfRangeApplies(fetchOffset: number, currentPosition: number | null): boolean {
  return currentPosition !== null && currentPosition === fetchOffset;
}
