import { describe, expect, it } from 'vitest';
import { CONSUMER_CONFIGS } from '../../../sim/kafka/config/configs';
import { defaultsOf } from '../../../sim/kafka/config/def';
import { ClientMetadata } from '../../../sim/kafka/client/metadataCache';
import { FetchBuffer } from '../../../sim/kafka/client/consumer/fetchBuffer';
import { Fetcher } from '../../../sim/kafka/client/consumer/fetcher';
import { OffsetFetcher } from '../../../sim/kafka/client/consumer/offsetFetcher';
import { SubscriptionState } from '../../../sim/kafka/client/consumer/subscriptionState';
import type { NetworkClient } from '../../../sim/kafka/net/networkClient';
import type { FetchRequest, MetadataResponse } from '../../../sim/kafka/protocol';

/** Three partitions of "t"; `leaders[i]` / `epochs[i]` for partition i. */
function metadataResponse(leaders: number[], epochs: number[]): MetadataResponse {
  return {
    type: 'MetadataResponse',
    correlationId: 0,
    brokers: [1, 2, 3].map((id) => ({ id, rack: null })),
    controllerId: 1,
    topics: [{ name: 't', error: 'NONE', partitions: leaders.map((leader, partition) => ({ partition, error: 'NONE', leader, leaderEpoch: epochs[partition]!, replicas: [1, 2, 3], isr: [1, 2, 3], elr: [] })) }],
  };
}

function rig() {
  const sent: { to: string; body: { type: string } & Record<string, unknown> }[] = [];
  const net = {
    send: (to: string, body: { type: string }) => sent.push({ to, body: body as never }),
  } as unknown as NetworkClient;
  const metadata = new ClientMetadata([1]);
  const subscriptions = new SubscriptionState();
  const host = {
    id: 'consumer-1',
    now: 0,
    trace: { emit: () => {} } as never,
    net,
    metadata,
    subscriptions,
    buffer: new FetchBuffer(),
    config: defaultsOf(CONSUMER_CONFIGS),
    requestMetadata: () => {},
    onOffsetOutOfRange: () => {},
    clearBuffered: () => {},
    wake: () => {},
    fatal: () => {},
    setTimer: () => 0,
  };
  return { sent, metadata, subscriptions, fetcher: new Fetcher(host), offsets: new OffsetFetcher(host) };
}

describe('consumer fetcher: what a poll skips and what makes it look again', () => {
  it('a fetch goes to the leader the metadata names now: a moved leader and a new epoch are seen at the next send', () => {
    const r = rig();
    r.metadata.update(metadataResponse([1, 2, 1], [5, 5, 5]), 0);
    r.subscriptions.assign([0, 1, 2].map((partition) => ({ topic: 't', partition })));
    for (const s of r.subscriptions.assignedPartitions()) r.subscriptions.seek(s, 10);
    expect(r.fetcher.sendFetches()).toBe(2);
    const fetches = () => r.sent.filter((x) => x.body.type === 'Fetch').map((x) => [x.to, (x.body as unknown as FetchRequest).partitions.map((p) => [p.partition, p.currentLeaderEpoch])]);
    expect(fetches()).toEqual([
      ['broker-1', [[0, 5], [2, 5]]],
      ['broker-2', [[1, 5]]],
    ]);
    // Both in flight: nothing more to send. Then partition 2 moves to broker 3 at epoch 6.
    expect(r.fetcher.sendFetches()).toBe(0);
    r.metadata.update(metadataResponse([1, 2, 3], [5, 5, 6]), 1);
    expect(r.fetcher.sendFetches()).toBe(1);
    expect(fetches().at(-1)).toEqual(['broker-3', [[2, 6]]]);
  });

  it('validation asks nothing while no epoch moved, and checks a position once the leader epoch grows', () => {
    const r = rig();
    r.metadata.update(metadataResponse([1, 1, 1], [5, 5, 5]), 0);
    r.subscriptions.assign([0, 1].map((partition) => ({ topic: 't', partition })));
    for (const s of r.subscriptions.assignedPartitions()) {
      r.subscriptions.seek(s, 10, 5);
      s.validatedLeaderEpoch = 5;
    }
    const validations = () => r.sent.filter((x) => x.body.type === 'OffsetsForLeaderEpoch').length;
    r.offsets.validatePositionsIfNeeded();
    r.offsets.validatePositionsIfNeeded();
    expect(validations()).toBe(0);
    // A position set with an older validated epoch (a committed offset's, as groupOffsets does) is checked.
    const s0 = r.subscriptions.get('t-0')!;
    r.subscriptions.seek(s0, 3, 4);
    s0.validatedLeaderEpoch = 4;
    r.offsets.validatePositionsIfNeeded();
    expect(validations()).toBe(1);
    expect(r.sent.at(-1)!.body).toMatchObject({ partitions: [{ topic: 't', partition: 0, currentLeaderEpoch: 5, leaderEpoch: 4 }] });
    // A leader epoch that grows calls for a check of a position validated before.
    r.metadata.update(metadataResponse([1, 1, 1], [5, 6, 5]), 1);
    r.offsets.validatePositionsIfNeeded();
    expect(validations()).toBe(2);
    expect(r.sent.at(-1)!.body).toMatchObject({ partitions: [{ topic: 't', partition: 1, currentLeaderEpoch: 6, leaderEpoch: 5 }] });
    expect(r.subscriptions.get('t-1')!.awaitingValidation).toBe(true);
  });

  it('resets go out when asked for, after polls that found none', () => {
    const r = rig();
    r.metadata.update(metadataResponse([1, 1, 1], [5, 5, 5]), 0);
    r.subscriptions.assign([{ topic: 't', partition: 0 }]);
    const resets = () => r.sent.filter((x) => x.body.type === 'ListOffsets').length;
    r.offsets.resetPositionsIfNeeded();
    r.offsets.resetPositionsIfNeeded();
    expect(resets()).toBe(0);
    r.subscriptions.requestReset(r.subscriptions.get('t-0')!, { kind: 'earliest' }, 'test');
    r.offsets.resetPositionsIfNeeded();
    expect(resets()).toBe(1);
  });
});
