import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { endOffsetForEpoch, isLogUpToDate, truncationOffset, validateOffsetAndEpoch, type EpochStart } from '../../../sim/kafka/raft/epochEndOffset';
import { EpochElection } from '../../../sim/kafka/raft/epochElection';
import {
  binaryExponentialElectionBackoffMs,
  randomElectionTimeoutMs,
  strictExponentialElectionBackoffMs,
} from '../../../sim/kafka/raft/electionTimeouts';
import { fetchersNeededForCheckQuorum, majorityEndOffset, maybeUpdateHighWatermark } from '../../../sim/kafka/raft/highWatermark';
import { canGrantVote, isIllegalVoteEpoch, type VoterView } from '../../../sim/kafka/raft/voteRules';

// Expected values below are worked out by hand from the rules as the Kafka sources state them (cited in
// each module), not taken from running the code.

describe('endOffsetForEpoch (KafkaMetadataLog over LeaderEpochFileCache.endOffsetFor)', () => {
  // Epoch 1 holds offsets 0-4, epoch 3 holds 5-8, epoch 4 holds 9-11; the log end offset is 12.
  const cache: EpochStart[] = [
    { epoch: 1, startOffset: 0 },
    { epoch: 3, startOffset: 5 },
    { epoch: 4, startOffset: 9 },
  ];
  it('the latest epoch ends at the log end offset', () => {
    expect(endOffsetForEpoch(cache, 4, 12)).toEqual({ offset: 12, epoch: 4 });
  });
  it('an older epoch ends where the next one starts', () => {
    expect(endOffsetForEpoch(cache, 3, 12)).toEqual({ offset: 9, epoch: 3 });
  });
  it('an epoch the log never had answers with the largest epoch below it', () => {
    expect(endOffsetForEpoch(cache, 2, 12)).toEqual({ offset: 5, epoch: 1 });
  });
  it('an epoch below every cached one ends where the first cached epoch starts', () => {
    expect(endOffsetForEpoch(cache, 0, 12)).toEqual({ offset: 0, epoch: 0 });
  });
  it('an epoch newer than all, or an empty log, gets (log end offset, last epoch)', () => {
    expect(endOffsetForEpoch(cache, 7, 12)).toEqual({ offset: 12, epoch: 4 });
    expect(endOffsetForEpoch([], 3, 0)).toEqual({ offset: 0, epoch: 0 });
  });
});

describe('validateOffsetAndEpoch (ReplicatedLog.validateOffsetAndEpoch)', () => {
  const cache: EpochStart[] = [
    { epoch: 1, startOffset: 0 },
    { epoch: 3, startOffset: 5 },
    { epoch: 4, startOffset: 9 },
  ];
  it('offset 0 is always a prefix', () => {
    expect(validateOffsetAndEpoch(cache, 12, 0, 9)).toEqual({ kind: 'valid' });
  });
  it('a fetcher whose last epoch ends here at or after its offset is valid', () => {
    expect(validateOffsetAndEpoch(cache, 12, 9, 3)).toEqual({ kind: 'valid' });
    expect(validateOffsetAndEpoch(cache, 12, 12, 4)).toEqual({ kind: 'valid' });
  });
  it('a fetcher with more of an epoch than the leader diverges at the end of that epoch', () => {
    expect(validateOffsetAndEpoch(cache, 12, 10, 3)).toEqual({ kind: 'diverging', divergingEpoch: { offset: 9, epoch: 3 } });
    expect(validateOffsetAndEpoch(cache, 12, 13, 4)).toEqual({ kind: 'diverging', divergingEpoch: { offset: 12, epoch: 4 } });
  });
  it('a fetcher in an epoch the leader never had diverges at the leader\'s older epoch', () => {
    expect(validateOffsetAndEpoch(cache, 12, 6, 2)).toEqual({ kind: 'diverging', divergingEpoch: { offset: 5, epoch: 1 } });
  });
});

describe('truncationOffset (ReplicatedLog.truncateToEndOffset)', () => {
  // The follower: epoch 1 at 0-4, epoch 2 at 5-7; end offset 8.
  const follower: EpochStart[] = [
    { epoch: 1, startOffset: 0 },
    { epoch: 2, startOffset: 5 },
  ];
  it('with the epoch: the smaller of the two ends', () => {
    expect(truncationOffset(follower, 8, { offset: 5, epoch: 1 })).toBe(5);
    expect(truncationOffset(follower, 8, { offset: 4, epoch: 1 })).toBe(4);
    expect(truncationOffset(follower, 8, { offset: 6, epoch: 2 })).toBe(6);
  });
  it('epoch 0 cuts to the leader\'s end offset', () => {
    expect(truncationOffset(follower, 8, { offset: 3, epoch: 0 })).toBe(3);
  });
});

describe('isLogUpToDate (KIP-595: (lastEpoch, endOffset) lexicographic)', () => {
  it('a later last epoch wins whatever the length', () => {
    expect(isLogUpToDate({ offset: 3, epoch: 5 }, { offset: 100, epoch: 4 })).toBe(true);
    expect(isLogUpToDate({ offset: 100, epoch: 4 }, { offset: 3, epoch: 5 })).toBe(false);
  });
  it('in the same epoch the longer log wins, equal is up to date', () => {
    expect(isLogUpToDate({ offset: 10, epoch: 4 }, { offset: 10, epoch: 4 })).toBe(true);
    expect(isLogUpToDate({ offset: 9, epoch: 4 }, { offset: 10, epoch: 4 })).toBe(false);
  });
});

describe('canGrantVote', () => {
  const view = (v: Partial<VoterView> & Pick<VoterView, 'state'>): VoterView => ({ leaderId: null, votedId: null, hasFetchedFromLeader: false, ...v });
  it('a leader grants nothing', () => {
    expect(canGrantVote(view({ state: 'Leader' }), 'c', true, true)).toEqual({ granted: false, reason: 'is-leader' });
    expect(canGrantVote(view({ state: 'Leader' }), 'c', true, false).granted).toBe(false);
  });
  it('a follower refuses binding votes, and pre-votes once it has fetched from its leader', () => {
    expect(canGrantVote(view({ state: 'Follower', leaderId: 'l' }), 'c', true, false)).toEqual({ granted: false, reason: 'has-leader' });
    expect(canGrantVote(view({ state: 'Follower', leaderId: 'l', hasFetchedFromLeader: true }), 'c', true, true)).toEqual({ granted: false, reason: 'fetched-from-leader' });
    expect(canGrantVote(view({ state: 'Follower', leaderId: 'l' }), 'c', true, true)).toEqual({ granted: true, reason: 'granted' });
    expect(canGrantVote(view({ state: 'Follower', leaderId: 'l' }), 'c', false, true)).toEqual({ granted: false, reason: 'log-not-up-to-date' });
  });
  it('candidates and resigned leaders grant only pre-votes for up-to-date logs', () => {
    expect(canGrantVote(view({ state: 'Candidate' }), 'c', true, false)).toEqual({ granted: false, reason: 'is-candidate' });
    expect(canGrantVote(view({ state: 'Resigned' }), 'c', true, false)).toEqual({ granted: false, reason: 'is-resigned' });
    expect(canGrantVote(view({ state: 'Candidate' }), 'c', true, true).granted).toBe(true);
    expect(canGrantVote(view({ state: 'Resigned' }), 'c', false, true).granted).toBe(false);
  });
  it('unattached: one binding vote per epoch, re-granted to the same candidate only', () => {
    expect(canGrantVote(view({ state: 'Unattached' }), 'c', true, false)).toEqual({ granted: true, reason: 'granted' });
    expect(canGrantVote(view({ state: 'Unattached', votedId: 'c' }), 'c', false, false)).toEqual({ granted: true, reason: 'granted' });
    expect(canGrantVote(view({ state: 'Unattached', votedId: 'd' }), 'c', true, false)).toEqual({ granted: false, reason: 'already-voted' });
    expect(canGrantVote(view({ state: 'Unattached' }), 'c', false, false)).toEqual({ granted: false, reason: 'log-not-up-to-date' });
    expect(canGrantVote(view({ state: 'Prospective', leaderId: 'l' }), 'c', true, false)).toEqual({ granted: false, reason: 'has-leader' });
  });
  it('unattached and prospective grant pre-votes on the log alone, even having voted', () => {
    expect(canGrantVote(view({ state: 'Prospective', votedId: 'd', leaderId: 'l' }), 'c', true, true).granted).toBe(true);
    expect(canGrantVote(view({ state: 'Unattached', votedId: 'd' }), 'c', false, true).granted).toBe(false);
  });
  it('a vote whose log epoch is at or past its epoch is illegal; a pre-vote may end in its own epoch', () => {
    expect(isIllegalVoteEpoch(false, 3, 3)).toBe(true);
    expect(isIllegalVoteEpoch(false, 2, 3)).toBe(false);
    expect(isIllegalVoteEpoch(true, 3, 3)).toBe(false);
    expect(isIllegalVoteEpoch(true, 4, 3)).toBe(true);
  });
});

describe('EpochElection', () => {
  it('3 voters: the self-vote plus one grant is a majority', () => {
    const e = new EpochElection(['a', 'b', 'c'], 'a');
    expect(e.isVoteGranted()).toBe(false);
    expect(e.unrecordedVoters()).toEqual(['b', 'c']);
    e.record('b', true);
    expect(e.isVoteGranted()).toBe(true);
    expect(e.grantingVoters()).toEqual(['a', 'b']);
  });
  it('3 voters: two rejections make the vote lost', () => {
    const e = new EpochElection(['a', 'b', 'c'], 'a');
    e.record('b', false);
    expect(e.isVoteRejected()).toBe(false);
    e.record('c', false);
    expect(e.isVoteRejected()).toBe(true);
  });
  it('5 voters: lost only once 3 rejected; a voter\'s first answer stands', () => {
    const e = new EpochElection(['a', 'b', 'c', 'd', 'e'], 'a');
    e.record('b', false);
    e.record('c', false);
    expect(e.isVoteRejected()).toBe(false);
    expect(e.record('c', true)).toBe(false);
    e.record('d', false);
    expect(e.isVoteRejected()).toBe(true);
  });
  it('a single voter elects itself', () => {
    expect(new EpochElection(['a'], 'a').isVoteGranted()).toBe(true);
  });
});

describe('maybeUpdateHighWatermark (LeaderState.maybeUpdateHighWatermark)', () => {
  it('takes the offset a majority holds', () => {
    expect(majorityEndOffset([10, 8, 5])).toBe(8);
    expect(majorityEndOffset([6, 10, 7, 9, 8])).toBe(8);
    expect(majorityEndOffset([10, null, null])).toBe(null);
    expect(majorityEndOffset([10, 4, null])).toBe(4);
  });
  it('moves only past the epoch start offset', () => {
    expect(maybeUpdateHighWatermark([10, 8, 5], 7, null)).toBe(8);
    expect(maybeUpdateHighWatermark([10, 8, 5], 8, null)).toBe(null);
  });
  it('never moves back', () => {
    expect(maybeUpdateHighWatermark([10, 8, 5], 0, 9)).toBe(null);
    expect(maybeUpdateHighWatermark([10, 8, 5], 0, 8)).toBe(null);
    expect(maybeUpdateHighWatermark([10, 9, 5], 0, 8)).toBe(9);
  });
  it('check quorum needs a majority of fetchers besides the leader', () => {
    expect(fetchersNeededForCheckQuorum(1)).toBe(0);
    expect(fetchersNeededForCheckQuorum(3)).toBe(1);
    expect(fetchersNeededForCheckQuorum(5)).toBe(2);
  });
});

describe('election timers', () => {
  it('the election timeout is uniform in [t, 2t)', () => {
    const r = Random.root(1);
    const xs = Array.from({ length: 2000 }, () => randomElectionTimeoutMs(r, 1000));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...xs)).toBeLessThan(2000);
    expect(xs.filter((x) => x < 1500).length).toBeGreaterThan(800);
    expect(xs.filter((x) => x >= 1500).length).toBeGreaterThan(800);
    expect(randomElectionTimeoutMs(r, 0)).toBe(0);
  });
  it('the candidate backoff is 100ms times uniform[0, 2^retries), capped', () => {
    const r = Random.root(2);
    const first = new Set(Array.from({ length: 200 }, () => binaryExponentialElectionBackoffMs(r, 1, 1000)));
    expect([...first].sort((a, b) => a - b)).toEqual([0, 100]);
    const third = new Set(Array.from({ length: 500 }, () => binaryExponentialElectionBackoffMs(r, 3, 1000)));
    expect([...third].sort((a, b) => a - b)).toEqual([0, 100, 200, 300, 400, 500, 600, 700]);
    for (let i = 0; i < 200; i++) expect(binaryExponentialElectionBackoffMs(r, 12, 1000)).toBeLessThanOrEqual(1000);
    expect(() => binaryExponentialElectionBackoffMs(r, 0, 1000)).toThrow(RangeError);
  });
  it('EndQuorumEpoch successors wait (max >> (n-1)) << (position-1)', () => {
    expect(strictExponentialElectionBackoffMs(0, 3, 1000)).toBe(0);
    expect(strictExponentialElectionBackoffMs(1, 3, 1000)).toBe(250);
    expect(strictExponentialElectionBackoffMs(2, 3, 1000)).toBe(500);
    expect(strictExponentialElectionBackoffMs(3, 3, 1000)).toBe(1000);
    expect(strictExponentialElectionBackoffMs(-1, 3, 1000)).toBe(1000);
  });
});
