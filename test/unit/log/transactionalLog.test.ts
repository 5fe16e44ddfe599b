import { describe, expect, it } from 'vitest';
import { buildBatch } from '../../../sim/kafka/records';
import { buildEndTxnMarker } from '../../../sim/kafka/log/endTxnMarker';
import { directEnv, openLog } from './logTestKit';

const P1 = 1;
const P2 = 2;

function txnBatch(producerId: number, n: number, seq: number, epoch = 0) {
  return buildBatch(
    Array.from({ length: n }, (_, i) => ({ key: null, value: `p${producerId}-${seq + i}`, timestamp: 0 })),
    { producerId, producerEpoch: epoch, baseSequence: seq, isTransactional: true },
  );
}

/** The hand-worked partition of transactionLog.test.ts, appended as a leader. */
function handWorked() {
  const { env } = directEnv();
  const log = openLog(env);
  log.appendAsLeader(buildBatch([{ key: null, value: 'a', timestamp: 0 }, { key: null, value: 'b', timestamp: 0 }]), 0, 0); // 0-1
  log.appendAsLeader(txnBatch(P1, 2, 0), 0, 0); // 2-3
  log.appendAsLeader(txnBatch(P2, 1, 0), 0, 0); // 4
  return { env, log };
}

describe('UnifiedLog with transactions', () => {
  it('open transactions pin the LSO; a marker decides one, the HW passing it makes it stable', () => {
    const { log } = handWorked();
    log.maybeIncrementHighWatermark(5);
    expect(log.lastStableOffset).toBe(2);
    const commit = log.appendAsLeader(buildEndTxnMarker('COMMIT', P1, 0, 0, 0), 0, 0, 'COORDINATOR');
    expect(commit.kind === 'appended' && commit.firstOffset).toBe(5);
    // The marker is at 5, not below the HW 5: P1 is still unstable.
    expect(log.lastStableOffset).toBe(2);
    log.maybeIncrementHighWatermark(6);
    expect(log.lastStableOffset).toBe(4);
    log.appendAsLeader(txnBatch(P2, 1, 1), 0, 0); // 6
    const abort = log.appendAsLeader(buildEndTxnMarker('ABORT', P2, 0, 0, 0), 0, 0, 'COORDINATOR'); // 7
    expect(abort.kind).toBe('appended');
    expect(log.abortedTransactions).toEqual([{ producerId: P2, firstOffset: 4, lastOffset: 7, lastStableOffset: 8 }]);
    log.maybeIncrementHighWatermark(8);
    expect(log.lastStableOffset).toBe(8);
    expect(log.collectAbortedTransactions(0, 8)).toEqual([{ producerId: P2, firstOffset: 4 }]);
    expect(log.collectAbortedTransactions(8, 8)).toEqual([]);
  });

  it('a producer with an open transaction may not write non-transactionally; an older epoch marker is refused', () => {
    const { log } = handWorked();
    const plain = log.appendAsLeader(buildBatch([{ key: null, value: 'x', timestamp: 0 }], { producerId: P1, producerEpoch: 0, baseSequence: 2 }), 0, 0);
    expect(plain.kind === 'error' && plain.error).toBe('INVALID_TXN_STATE');
    log.appendAsLeader(buildEndTxnMarker('ABORT', P1, 1, 0, 0), 0, 0, 'COORDINATOR'); // epoch bumped by the coordinator
    const zombie = log.appendAsLeader(txnBatch(P1, 1, 2, 0), 0, 0);
    expect(zombie.kind === 'error' && zombie.error).toBe('INVALID_PRODUCER_EPOCH');
  });

  it('truncation below a marker reopens its transaction and drops its index entry', () => {
    const { log } = handWorked();
    log.appendAsLeader(buildEndTxnMarker('ABORT', P2, 0, 0, 0), 0, 0, 'COORDINATOR'); // 5
    expect(log.abortedTransactions.length).toBe(1);
    log.truncateTo(5);
    expect(log.abortedTransactions).toEqual([]);
    log.updateHighWatermark(5);
    expect(log.lastStableOffset).toBe(2);
    expect(log.producerStateManager.ongoingTransactions().map((t) => [t.producerId, t.firstOffset])).toEqual([
      [P1, 2],
      [P2, 4],
    ]);
  });

  it('reopening the log rebuilds the index and the open transactions', () => {
    const { env, log } = handWorked();
    log.appendAsLeader(buildEndTxnMarker('ABORT', P2, 0, 0, 0), 0, 0, 'COORDINATOR'); // 5
    log.close();
    const again = openLog(env, {}, { highWatermark: 6 });
    expect(again.abortedTransactions).toEqual([{ producerId: P2, firstOffset: 4, lastOffset: 5, lastStableOffset: 2 }]);
    // P1 is still open from 2.
    expect(again.lastStableOffset).toBe(2);
  });
});
