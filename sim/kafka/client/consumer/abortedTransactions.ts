/**
 * What a consumer does with the batches of one fetched partition, per `isolation.level`. Control batches
 * (transaction markers) are never returned to the application, only stepped over. With read_committed, the
 * fetch response lists the aborted transactions (producer id, first offset) overlapping the data: from a listed
 * first offset on, that producer's transactional batches are dropped until its ABORT marker. Pure.
 * [src: clients/.../consumer/internals/CompletedFetch.java `nextFetchedRecord`, `consumeAbortedTransactionsUpTo`, `isBatchAborted`, `containsAbortMarker`]
 */
import type { ControlType } from '../../records';

export type IsolationLevel = 'read_uncommitted' | 'read_committed';

export interface FetchedBatchView {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly producerId: number;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly controlType?: ControlType;
}

/** deliver: its records go to the application; aborted: dropped (read_committed); control: a marker, skipped. */
export type BatchVerdict = 'deliver' | 'aborted' | 'control';

export function classifyFetchedBatches(
  isolation: IsolationLevel,
  batches: readonly FetchedBatchView[],
  abortedTransactions: readonly { readonly producerId: number; readonly firstOffset: number }[],
): BatchVerdict[] {
  // The response's list, as Kafka's priority queue by first offset (stable for equal offsets).
  const queue = [...abortedTransactions].sort((a, b) => a.firstOffset - b.firstOffset);
  let next = 0;
  const abortedProducers = new Set<number>();
  const out: BatchVerdict[] = [];
  for (const b of batches) {
    if (isolation === 'read_committed' && b.producerId >= 0) {
      while (next < queue.length && queue[next]!.firstOffset <= b.lastOffset) abortedProducers.add(queue[next++]!.producerId);
      if (b.isControl && b.controlType === 'ABORT') {
        abortedProducers.delete(b.producerId);
      } else if (b.isTransactional && abortedProducers.has(b.producerId)) {
        out.push('aborted');
        continue;
      }
    }
    out.push(b.isControl ? 'control' : 'deliver');
  }
  return out;
}
