import type { Micros } from '../../core/time';
import type { Disk } from '../../world/disk';
import { METADATA_PARTITION_DIR } from './metadataLog';

/**
 * What the `quorum-state` file holds: the epoch, the leader known in it and the vote cast in it
 * [raft/.../ElectionState.java; the file's JSON fields are leaderEpoch, leaderId, votedId, currentVoters].
 */
export interface ElectionState {
  readonly leaderEpoch: number;
  readonly leaderId: string | null;
  readonly votedId: string | null;
  readonly currentVoters: readonly string[];
}

const QUORUM_STATE_BYTES = 128;

/**
 * The `quorum-state` file [raft/.../FileQuorumStateStore.java `writeElectionState`]: written whole to a temporary
 * file, fsynced, then renamed over the old one, so a power loss leaves either the old state or the new one,
 * never neither. The caller waits for the fsync to complete (`write` returns when) and then calls `commit`.
 */
export class QuorumStateStore {
  readonly file: string;
  private readonly tmp: string;
  private pending = false;

  constructor(
    private readonly disk: Disk,
    dir: string,
  ) {
    this.file = `${dir}/${METADATA_PARTITION_DIR}/quorum-state`;
    this.tmp = `${this.file}.tmp`;
  }

  /** The last committed state, or null when there is none (first start) or it is unreadable. */
  read(): ElectionState | null {
    // A temporary file left by a crash before its rename never became the state.
    if (this.disk.exists(this.tmp)) this.disk.delete(this.tmp);
    const chunks = this.disk.read<ElectionState>(this.file);
    const last = chunks[chunks.length - 1];
    if (!last || last.torn) return null;
    return last.data;
  }

  /** Writes the state to the temporary file and starts its fsync; returns when the fsync completes. */
  write(state: ElectionState): Micros {
    this.disk.rewrite(this.tmp, [{ data: state, bytes: QUORUM_STATE_BYTES }]);
    this.pending = true;
    return this.disk.fsync(this.tmp);
  }

  /** The fsync completed: the new state replaces the old one (a rename is durable at once). */
  commit(): void {
    if (!this.pending) return;
    this.pending = false;
    this.disk.rename(this.tmp, this.file);
  }
}
