import { describe, expect, it } from 'vitest';
import { ShareGroup, shareGroupHeartbeat, removeShareGroupMember } from '../../../sim/kafka/share/shareGroup';
import type { ShareGroupHeartbeatRequest } from '../../../sim/kafka/share/shareProtocol';

const CTX = { clientId: 'c', heartbeatIntervalMs: 5000, maxSize: 3, partitionCount: (t: string) => (t === 'jobs' ? 2 : -1) };
const hb = (memberId: string, memberEpoch: number, topics: string[] | null = memberEpoch === 0 ? ['jobs'] : null): ShareGroupHeartbeatRequest => ({
  type: 'ShareGroupHeartbeat',
  correlationId: 1,
  groupId: 'g',
  memberId,
  memberEpoch,
  rackId: null,
  subscribedTopicNames: topics,
});

describe('ShareGroupHeartbeat on the coordinator', () => {
  it('a join bumps the group epoch and answers with the member target at once (no revocation step)', () => {
    const g = new ShareGroup('g');
    const a = shareGroupHeartbeat(g, hb('a', 0), CTX);
    expect([a.error, a.memberEpoch, a.assignment]).toEqual(['NONE', 1, [{ topic: 'jobs', partitions: [0, 1] }]]);
    const b = shareGroupHeartbeat(g, hb('b', 0), CTX);
    expect([b.memberEpoch, b.assignment]).toEqual([2, [{ topic: 'jobs', partitions: [1] }]]);
    // a still holds both until its next heartbeat, which moves it to epoch 2 with partition 0 only.
    const a2 = shareGroupHeartbeat(g, hb('a', 1), CTX);
    expect([a2.memberEpoch, a2.assignment]).toEqual([2, [{ topic: 'jobs', partitions: [0] }]]);
    expect(shareGroupHeartbeat(g, hb('a', 2), CTX).assignment).toBeNull();
  });

  it('four members on two partitions: every member is assigned one, each partition shared by two', () => {
    const g = new ShareGroup('g');
    const ctx = { ...CTX, maxSize: 10 };
    for (const m of ['a', 'b', 'c', 'd']) shareGroupHeartbeat(g, hb(m, 0), ctx);
    for (const m of ['a', 'b', 'c', 'd']) shareGroupHeartbeat(g, hb(m, g.members.get(m)!.memberEpoch), ctx);
    expect([...g.members.values()].map((m) => m.assignment[0]!.partitions)).toEqual([[0], [1], [0], [1]]);
  });

  it('refuses unknown members, stale epochs, a full group and an empty first subscription with Kafka errors', () => {
    const g = new ShareGroup('g');
    expect(shareGroupHeartbeat(g, hb('x', 3), CTX).error).toBe('UNKNOWN_MEMBER_ID');
    expect(shareGroupHeartbeat(g, hb('', 0), CTX).error).toBe('INVALID_REQUEST');
    expect(shareGroupHeartbeat(g, hb('a', 0, []), CTX).error).toBe('INVALID_REQUEST');
    for (const m of ['a', 'b', 'c']) shareGroupHeartbeat(g, hb(m, 0), CTX);
    expect(shareGroupHeartbeat(g, hb('d', 0), CTX).error).toBe('GROUP_MAX_SIZE_REACHED');
    // An epoch the member never had (neither its current nor its previous one) is fenced.
    expect(shareGroupHeartbeat(g, hb('a', 7), CTX).error).toBe('FENCED_MEMBER_EPOCH');
  });

  it('a leave (epoch -1) or a session expiry removes the member and bumps the epoch', () => {
    const g = new ShareGroup('g');
    shareGroupHeartbeat(g, hb('a', 0), CTX);
    shareGroupHeartbeat(g, hb('b', 0), CTX);
    const left = shareGroupHeartbeat(g, hb('b', -1), CTX);
    expect([left.left, left.memberEpoch, g.groupEpoch]).toEqual([true, -1, 3]);
    expect(removeShareGroupMember(g, 'a')).toBe(true);
    expect(g.groupEpoch).toBe(4);
    expect(removeShareGroupMember(g, 'a')).toBe(false);
  });
});
