import { tpKey } from '../../../sim/kafka/topicPartition';
import type { BatchNode } from './replicaLog';
import { findBatch } from './replicaLog';
import type { TraceModel } from './traceModel';

/**
 * The batch layers of the partition view, read from the trace. A record batch is what a producer sent (the leader
 * appends it whole, and every follower copies it byte for byte); a fetch is what one fetch response returned: a
 * follower's append (replica.append, role follower) or the records of one partition a consumer's poll returned.
 */

/** What one consumer poll returned from one partition: its offsets' range. */
export interface PollRange {
  /** The poll's event index (it shows from then on). */
  readonly i: number;
  readonly consumer: string;
  readonly lo: number;
  readonly hi: number;
  readonly count: number;
}

/** Every poll of the run that returned records of `key`, in trace order (read once per partition). */
export function consumerPolls(model: TraceModel, key: string): PollRange[] {
  const out: PollRange[] = [];
  model.events.forEach((e, i) => {
    if (e.kind !== 'consumer.poll') return;
    for (const r of e.records) {
      if (r.offsets.length === 0 || tpKey(r.topic, r.partition) !== key) continue;
      let lo = r.offsets[0]!;
      let hi = lo;
      for (const o of r.offsets) {
        if (o < lo) lo = o;
        if (o > hi) hi = o;
      }
      out.push({ i, consumer: e.node, lo, hi, count: r.offsets.length });
    }
  });
  return out;
}

/**
 * The producer's record batches that make up offsets lo..hi of a replica's append: a leader's append is one batch;
 * a follower's fetch is split at the batches its leader appended (in the fetch's epoch, else the nearest older one,
 * since a fetch that catches up can carry batches of earlier epochs).
 */
export function recordBatchesOf(model: TraceModel, key: string, node: BatchNode, lo: number, hi: number): { base: number; last: number }[] {
  if (!node.fetched) return [{ base: node.base, last: node.last }];
  const byEpoch = model.leaderBatches.get(key);
  const epochs = byEpoch ? [...byEpoch.keys()].filter((e) => e <= node.epoch).sort((a, b) => b - a) : [];
  const out: { base: number; last: number }[] = [];
  for (let o = lo; o <= hi; ) {
    let found: { base: number; last: number } | null = null;
    for (const ep of epochs) {
      const list = byEpoch!.get(ep)!;
      const j = findBatch(list, o);
      if (j >= 0) {
        found = list[j]!;
        break;
      }
    }
    if (!found) {
      // No leader append traced for these offsets (a trace from elsewhere): the fetch stands for itself.
      out.push({ base: o, last: hi });
      break;
    }
    out.push({ base: found.base, last: found.last });
    o = found.last + 1;
  }
  return out;
}
