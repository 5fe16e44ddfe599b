import { describe, expect, it } from 'vitest';
import type { OffsetFetchResponse, TxnOffsetCommitResponse } from '../../../sim/kafka/protocol';
import { CoordinatorHarness } from './coordinatorHarness';

// TxnOffsetCommit (KIP-98, KIP-447): member and generation checked, offsets pending until the marker, an
// OffsetFetch that requires stable offsets told UNSTABLE_OFFSET_COMMIT meanwhile, the log replayed the same way.
const G = 'copier';
const PID = 4000;

/** One member through join and sync: its id and generation. */
function member(h: CoordinatorHarness): { memberId: string; generation: number } {
  h.lead(G);
  const a = h.joinNew(G, 'consumer-1');
  h.runFor(5_000);
  const j = a.join.response!;
  expect(j.error).toBe('NONE');
  h.sync(G, a.memberId, j.generationId, [{ memberId: a.memberId, partitions: [{ topic: 't', partition: 0 }] }]);
  h.runFor(10);
  return { memberId: a.memberId, generation: j.generationId };
}

function txnCommit(h: CoordinatorHarness, m: { memberId: string; generation: number }, offset: number) {
  return h.send<TxnOffsetCommitResponse>({
    type: 'TxnOffsetCommit',
    transactionalId: 'copier-1',
    groupId: G,
    producerId: PID,
    producerEpoch: 0,
    generationId: m.generation,
    memberId: m.memberId,
    groupInstanceId: null,
    offsets: [{ topic: 't', partition: 0, offset, leaderEpoch: 0, metadata: '' }],
  });
}

const fetchStable = (h: CoordinatorHarness) => h.send<OffsetFetchResponse>({ type: 'OffsetFetch', groupId: G, partitions: [{ topic: 't', partition: 0 }], requireStable: true }).response!.partitions[0]!;

describe('GroupCoordinator: transactional offsets', () => {
  it('keeps them pending until the COMMIT marker: a stable fetch is UNSTABLE_OFFSET_COMMIT, a plain one the old offset', () => {
    const h = new CoordinatorHarness();
    const m = member(h);
    h.commit(G, m.memberId, m.generation, [{ topic: 't', partition: 0, offset: 10 }]);
    h.runFor(10);
    const r = txnCommit(h, m, 25);
    h.runFor(10);
    expect(r.response!.partitions.map((p) => p.error)).toEqual(['NONE']);
    expect(fetchStable(h)).toMatchObject({ offset: -1, error: 'UNSTABLE_OFFSET_COMMIT' });
    expect(h.fetchOffsets(G, [{ topic: 't', partition: 0 }]).response!.partitions[0]!.offset).toBe(10);
    h.coordinator.completeTransaction(h.partitionOf(G), PID, true);
    expect(fetchStable(h)).toMatchObject({ offset: 25, error: 'NONE' });
  });

  it('drops them on the ABORT marker: the committed offset stays', () => {
    const h = new CoordinatorHarness();
    const m = member(h);
    h.commit(G, m.memberId, m.generation, [{ topic: 't', partition: 0, offset: 10 }]);
    txnCommit(h, m, 25);
    h.runFor(10);
    h.coordinator.completeTransaction(h.partitionOf(G), PID, false);
    expect(fetchStable(h)).toMatchObject({ offset: 10, error: 'NONE' });
  });

  it('fences a zombie by member id and generation (KIP-447); without group metadata the commit is taken', () => {
    const h = new CoordinatorHarness();
    const m = member(h);
    expect(txnCommit(h, { ...m, generation: m.generation - 1 }, 5).response!.partitions[0]!.error).toBe('ILLEGAL_GENERATION');
    expect(txnCommit(h, { memberId: 'gone', generation: m.generation }, 5).response!.partitions[0]!.error).toBe('UNKNOWN_MEMBER_ID');
    const old = txnCommit(h, { memberId: '', generation: -1 }, 5);
    h.runFor(10);
    expect(old.response!.partitions[0]!.error).toBe('NONE');
  });

  it('replays the log alike after a move: pending without a marker, committed after COMMIT, gone after ABORT', () => {
    const h = new CoordinatorHarness();
    const m = member(h);
    txnCommit(h, m, 25);
    h.runFor(10);
    const p = h.partitionOf(G);
    // Another broker loads the same log while the transaction is open.
    h.coordinator.onResign(p);
    h.lead(G, 2);
    expect(fetchStable(h).error).toBe('UNSTABLE_OFFSET_COMMIT');
    h.storage.marker(p, PID, 'COMMIT');
    h.coordinator.onResign(p);
    h.lead(G, 3);
    expect(fetchStable(h)).toMatchObject({ offset: 25, error: 'NONE' });
  });
});
