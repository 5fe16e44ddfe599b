/**
 * How a coordinator embedded in a broker keeps its records in an internal topic (`__consumer_offsets`,
 * `__transaction_state`): one batch of keyed records per write, and the whole partition read back when the
 * broker becomes its leader. [src: coordinator-common/.../runtime/CoordinatorLoaderImpl.java `load`]
 */
import { buildBatch, type PayloadTable, type RecordBatch } from '../records';
import type { CoordinatorRecord, TransactionalWriter } from '../coordinator/storage';
import type { Broker } from './broker';

/**
 * The coordinator's batches point to keys and values in its own payload table. A transactional write (the
 * group coordinator's TxnOffsetCommit) carries the producer's id and epoch and the transactional bit, with no
 * sequence, as Kafka's coordinator writes it. [src: CoordinatorRuntime `scheduleTransactionalWriteOperation`]
 */
export function coordinatorBatch(records: readonly CoordinatorRecord[], nowMs: number, payloads: PayloadTable, transactional?: TransactionalWriter): RecordBatch {
  return buildBatch(
    records.map((r) => ({ key: r.key, value: r.value, timestamp: nowMs })),
    transactional ? { payloads, producerId: transactional.producerId, producerEpoch: transactional.producerEpoch, isTransactional: true } : { payloads },
  );
}

/** Every keyed record of the partition as this leader holds it, up to its log end (as Kafka's loader reads). */
export function readCoordinatorLog(broker: Broker, topic: string, partition: number): CoordinatorRecord[] {
  const p = broker.replicas.partition(topic, partition);
  if (!p) return [];
  const out: CoordinatorRecord[] = [];
  const log = p.log;
  let pos = log.logStartOffset;
  const end = log.logEndOffset;
  while (pos < end) {
    const r = log.read(pos, 1 << 30, end, true);
    if (r.error || r.batches.length === 0) break;
    for (const b of r.batches) {
      const control = b.controlType;
      if (control !== undefined) out.push({ key: control, value: null, producerId: b.producerId, control });
      else {
        const producerId = b.isTransactional ? b.producerId : undefined;
        for (let i = 0; i < b.recordCount; i++) {
          const key = b.keyAt(i);
          if (key !== null) out.push(producerId === undefined ? { key, value: b.valueAt(i) } : { key, value: b.valueAt(i), producerId });
        }
      }
      pos = Math.max(pos, b.baseOffset + b.lastOffsetDelta + 1);
    }
  }
  return out;
}
