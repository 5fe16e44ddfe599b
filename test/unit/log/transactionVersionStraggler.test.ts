import { describe, expect, it } from 'vitest';
import { buildBatch } from '../../../sim/kafka/records';
import { buildEndTxnMarker } from '../../../sim/kafka/log/endTxnMarker';
import { directEnv, openLog } from './logTestKit';

// KIP-890's hanging transaction at the partition: a produce of an aborted transaction that arrives after the
// ABORT marker. transaction.version 1 writes the marker with the producer's epoch, so the straggler (same epoch,
// the next sequence) is appended and opens a transaction nobody will end; version 2 writes the marker with the
// epoch the coordinator bumped, so the straggler's older epoch is refused.
const P = 9;
const batch = (seq: number, epoch: number) =>
  buildBatch([{ key: null, value: `v${seq}`, timestamp: 0 }], { producerId: P, producerEpoch: epoch, baseSequence: seq, isTransactional: true });

function abortedThenStraggler(markerEpoch: number) {
  const { env } = directEnv();
  const log = openLog(env);
  log.appendAsLeader(batch(0, 0), 0, 0); // 0: the transaction's first write
  // seq 1 is delayed in the network; the transaction is aborted meanwhile.
  log.appendAsLeader(buildEndTxnMarker('ABORT', P, markerEpoch, 0, 0), 0, 0, 'COORDINATOR'); // 1
  const straggler = log.appendAsLeader(batch(1, 0), 0, 0);
  log.maybeIncrementHighWatermark(log.logEndOffset);
  return { log, straggler };
}

describe('a straggler after the abort (KIP-890)', () => {
  it('transaction.version 1: appended, and it pins the LSO with a transaction the coordinator does not know', () => {
    const { log, straggler } = abortedThenStraggler(0);
    expect(straggler.kind).toBe('appended');
    expect([log.lastStableOffset, log.highWatermark]).toEqual([2, 3]);
  });

  it('transaction.version 2: the marker carried the bumped epoch, so the straggler is INVALID_PRODUCER_EPOCH', () => {
    const { log, straggler } = abortedThenStraggler(1);
    expect(straggler.kind === 'error' && straggler.error).toBe('INVALID_PRODUCER_EPOCH');
    expect(log.lastStableOffset).toBe(log.highWatermark);
  });
});
