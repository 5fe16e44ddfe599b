/**
 * A transaction marker: a control batch of one record whose key is the ControlRecordType (COMMIT / ABORT),
 * transactional, with the producer's id and the epoch the coordinator ended the transaction with; no
 * sequence. It takes one offset. Kafka's marker value also carries the coordinator epoch; the simulator's
 * control record has no value (records.ts `buildControlBatch`), so the epoch is not kept.
 * [src: clients/.../common/record/MemoryRecords.java `withEndTransactionMarker`; EndTransactionMarker.java]
 */
import { buildControlBatch, type ControlType, type RecordBatch } from '../records';

export function buildEndTxnMarker(type: ControlType, producerId: number, producerEpoch: number, _coordinatorEpoch: number, timestampMs: number): RecordBatch {
  return buildControlBatch(type, timestampMs, { producerId, producerEpoch });
}
