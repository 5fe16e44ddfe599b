/**
 * A consume-transform-produce application: for every record it polls it writes one derived record (same key) to
 * an output topic with a producer of its own process, then commits the input positions. Two guarantees, named as
 * Kafka Streams' `processing.guarantee` names them:
 * - `at_least_once`: send the outputs, flush, then commitSync() the inputs. A crash after the outputs are written
 *   and before the commit reads the inputs again: their outputs are written twice.
 * - `exactly_once_v2`: beginTransaction, the outputs, sendOffsetsToTransaction(positions, groupMetadata) and
 *   commitTransaction (KIP-98, KIP-447): the outputs and the input positions commit or abort together. After an
 *   abort the consumer goes back to its committed positions; a fenced producer closes the application.
 * [KafkaProducer `sendOffsetsToTransaction`; Kafka Streams StreamThread / TaskExecutor commit]
 */
import type { Random } from '../../../core/random';
import { ms } from '../../../core/time';
import type { Producer } from '../producer/producer';
import type { Consumer } from './consumer';
import type { PolledRecord } from './fetchBuffer';
import { drawProcessingMs, type ProcessingTime } from './processingModel';

/** What the application does with each record: where the derived record goes, and how it commits. */
export interface TransformSpec {
  readonly topic: string;
  readonly guarantee: 'at_least_once' | 'exactly_once_v2';
  /** The producer process on the same host (its live incarnation). */
  readonly producer: () => Producer | undefined;
}

export class TransformLoop {
  constructor(
    private readonly consumer: Consumer,
    private readonly spec: TransformSpec,
    private readonly recordTime: ProcessingTime,
    private readonly random: Random,
    /** The application stops (a fenced producer cannot go on). */
    private readonly close: () => void,
  ) {}

  /** One poll's records: transform, write, commit; then `next` (the next poll). */
  onPolled(records: readonly PolledRecord[], next: () => void): void {
    const producer = this.spec.producer();
    if (!producer) return this.close();
    if (this.spec.guarantee === 'at_least_once') {
      return this.transformAll(producer, records, false, () =>
        producer.flush(() => this.consumer.commitSync('sync', () => next())),
      );
    }
    const tx = producer.transactional;
    if (!tx) return this.close();
    tx.whenReady(() => {
      const n = producer.partitionCountOf(this.spec.topic);
      if (n === null) {
        // The output topic's metadata is not there yet: the records are read again after the rewind.
        this.consumer.rewindToCommitted();
        return void this.consumer.setTimer(ms(100), next);
      }
      const partitions = Array.from({ length: n }, (_, partition) => ({ topic: this.spec.topic, partition }));
      tx.begin(partitions, () =>
        this.transformAll(producer, records, true, () => {
          if (tx.state === 'FATAL_ERROR') return this.close();
          tx.sendOffsets(this.consumer.consumedOffsets(), this.consumer.groupMetadata(), (error) => {
            // A fenced consumer's offsets make the transaction abortable: abort, and read again from the committed positions.
            tx.end(error === 'NONE', (committed) => {
              if (!committed) this.consumer.rewindToCommitted();
              next();
            });
          });
        }),
      );
    });
  }

  /** Processes the records in order, each taking its processing time, and sends each one's output as it is done. */
  private transformAll(producer: Producer, records: readonly PolledRecord[], transactional: boolean, done: () => void): void {
    let i = 0;
    const step = (): void => {
      const r = records[i++];
      if (!r) return done();
      this.consumer.setTimer(ms(drawProcessingMs(this.recordTime, this.random)), () => {
        const valueId = producer.payloads.nextCountedValue();
        const output = producer.payloads.valueText(valueId)!;
        this.consumer.trace.emit('consumer.transform', this.consumer.id, { topic: r.topic, partition: r.partition, offset: r.offset, input: r.value, output, outputTopic: this.spec.topic });
        const rec = { topic: this.spec.topic, key: r.key, valueId, valueBytes: r.value === null ? 0 : r.value.length };
        if (transactional) producer.transactional!.send(rec);
        else producer.produce(rec.topic, rec.key, rec.valueId, rec.valueBytes);
        this.consumer.trace.emit('consumer.processed', this.consumer.id, { topic: r.topic, partition: r.partition, offsets: [r.offset], latencyMs: [Math.max(0, this.consumer.now / 1000 - r.timestamp)], thread: 'poll' });
        step();
      });
    };
    step();
  }
}
