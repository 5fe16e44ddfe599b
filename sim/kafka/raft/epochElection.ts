/**
 * The tally of one election (pre-vote or vote) in one epoch [raft/.../internals/EpochElection.java]: each voter
 * is unrecorded, granting or rejecting; the local voter grants itself.
 */
export class EpochElection {
  /** Per voter (by index in `voters`): 0 unrecorded, 1 granted, -1 rejected. */
  private readonly votes: Int8Array;
  private granted = 0;
  private rejected = 0;

  constructor(
    readonly voters: readonly string[],
    self: string,
  ) {
    this.votes = new Int8Array(voters.length);
    this.record(self, true);
  }

  /** Majority of the voter set (2 of 3, 3 of 5). */
  get majority(): number {
    return (this.voters.length >> 1) + 1;
  }

  /** Records a voter's answer; a voter's first answer stands. Returns false when it was already recorded. */
  record(voterId: string, granted: boolean): boolean {
    const i = this.voters.indexOf(voterId);
    if (i < 0 || this.votes[i] !== 0) return false;
    this.votes[i] = granted ? 1 : -1;
    if (granted) this.granted++;
    else this.rejected++;
    return true;
  }

  /** A majority granted [EpochElection.isVoteGranted]. */
  isVoteGranted(): boolean {
    return this.granted >= this.majority;
  }

  /** Even every unrecorded voter granting could not make a majority [EpochElection.isVoteRejected]. */
  isVoteRejected(): boolean {
    return this.voters.length - this.rejected < this.majority;
  }

  /** Voters yet to answer, in voter-set order. */
  unrecordedVoters(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.voters.length; i++) if (this.votes[i] === 0) out.push(this.voters[i]!);
    return out;
  }

  grantingVoters(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.voters.length; i++) if (this.votes[i] === 1) out.push(this.voters[i]!);
    return out;
  }
}
