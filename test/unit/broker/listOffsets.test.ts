import { describe, expect, it } from 'vitest';
import { listOffsetsAnswer, type ListOffsetsInput } from '../../../sim/kafka/broker/rules/listOffsets';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../../../sim/kafka/protocol';

// A log of 10 records, one per ms from t=100: record n has timestamp 100 + n.
const base: ListOffsetsInput = {
  timestamp: LATEST_TIMESTAMP,
  logStartOffset: 2,
  highWatermark: 10,
  leaderEpoch: 4,
  leaderEpochStartOffset: 10,
  findByTimestamp: (t) => (t <= 109 ? { offset: Math.max(0, t - 100), leaderEpoch: 3 } : null),
};

describe('ListOffsets [Partition.fetchOffsetForTimestamp, ReplicaManager.fetchOffset]', () => {
  it('a leader whose HW reached its epoch start answers earliest, latest and timestamps', () => {
    expect(listOffsetsAnswer({ ...base, timestamp: EARLIEST_TIMESTAMP })).toEqual({ error: 'NONE', offset: 2, leaderEpoch: 4 });
    expect(listOffsetsAnswer(base)).toEqual({ error: 'NONE', offset: 10, leaderEpoch: 4 });
    expect(listOffsetsAnswer({ ...base, timestamp: 105 })).toEqual({ error: 'NONE', offset: 5, leaderEpoch: 3 });
    // No record at or after the timestamp: -1 (the consumer then seeks to the end).
    expect(listOffsetsAnswer({ ...base, timestamp: 500 })).toMatchObject({ error: 'NONE', offset: -1 });
  });

  it('a new leader whose HW lags its epoch start answers OFFSET_NOT_AVAILABLE for latest, not the stale HW', () => {
    const lagging = { ...base, highWatermark: 6, leaderEpochStartOffset: 10 };
    expect(listOffsetsAnswer(lagging)).toEqual({ error: 'OFFSET_NOT_AVAILABLE', offset: -1, leaderEpoch: -1 });
    // Earliest needs no HW and is answered.
    expect(listOffsetsAnswer({ ...lagging, timestamp: EARLIEST_TIMESTAMP })).toEqual({ error: 'NONE', offset: 2, leaderEpoch: 4 });
    // A timestamp whose record is below the HW is answered; one at or past it is not available yet.
    expect(listOffsetsAnswer({ ...lagging, timestamp: 103 })).toEqual({ error: 'NONE', offset: 3, leaderEpoch: 3 });
    expect(listOffsetsAnswer({ ...lagging, timestamp: 107 })).toEqual({ error: 'OFFSET_NOT_AVAILABLE', offset: -1, leaderEpoch: -1 });
    // No record at all for the timestamp: -1 even while lagging (Kafka raises only for a found offset past the HW).
    expect(listOffsetsAnswer({ ...lagging, timestamp: 500 })).toMatchObject({ error: 'NONE', offset: -1 });
  });

  it('once the HW reaches the epoch start the answer is the HW again', () => {
    expect(listOffsetsAnswer({ ...base, highWatermark: 10, leaderEpochStartOffset: 10 })).toMatchObject({ error: 'NONE', offset: 10 });
    expect(listOffsetsAnswer({ ...base, highWatermark: 12, leaderEpochStartOffset: 10 })).toMatchObject({ error: 'NONE', offset: 12 });
  });
});
