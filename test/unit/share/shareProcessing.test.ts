import { describe, expect, it } from 'vitest';
import { acknowledgementBatches, failureFor } from '../../../sim/kafka/client/share/shareProcessing';
import { acquiredRuns } from '../../../sim/kafka/share/shareProtocol';

describe("the share consumer's processing rules", () => {
  const poison = { name: 'poison', valuePrefix: 'bad:', times: Infinity, ack: 'RELEASE' as const };
  const flaky = { name: 'flaky', keyPrefix: 'k7', times: 2, ack: 'RELEASE' as const };

  it('a poison pill fails every delivery; a flaky record fails its first k and then succeeds', () => {
    expect(failureFor([poison], { key: null, value: 'bad:1', deliveryCount: 9 })).toBe(poison);
    expect(failureFor([flaky], { key: 'k7', value: 'x', deliveryCount: 2 })).toBe(flaky);
    expect(failureFor([flaky], { key: 'k7', value: 'x', deliveryCount: 3 })).toBeUndefined();
    expect(failureFor([poison, flaky], { key: 'k1', value: 'ok', deliveryCount: 1 })).toBeUndefined();
  });

  it('acknowledgements go out as runs of consecutive offsets of one type', () => {
    expect(
      acknowledgementBatches([
        { offset: 5, type: 'ACCEPT' },
        { offset: 3, type: 'ACCEPT' },
        { offset: 4, type: 'ACCEPT' },
        { offset: 6, type: 'RELEASE' },
        { offset: 8, type: 'RELEASE' },
      ]),
    ).toEqual([
      { firstOffset: 3, lastOffset: 5, type: 'ACCEPT' },
      { firstOffset: 6, lastOffset: 6, type: 'RELEASE' },
      { firstOffset: 8, lastOffset: 8, type: 'RELEASE' },
    ]);
  });

  it('acquired records go out as runs of one delivery count', () => {
    expect(
      acquiredRuns([
        { offset: 1, deliveryCount: 1 },
        { offset: 2, deliveryCount: 1 },
        { offset: 3, deliveryCount: 2 },
        { offset: 5, deliveryCount: 2 },
      ]),
    ).toEqual([
      { firstOffset: 1, lastOffset: 2, deliveryCount: 1 },
      { firstOffset: 3, lastOffset: 3, deliveryCount: 2 },
      { firstOffset: 5, lastOffset: 5, deliveryCount: 2 },
    ]);
  });
});
