/**
 * One share-partition: the state a share group keeps for one topic-partition, on that partition's leader.
 * Everything below the start offset (SPSO) is finished; the in-flight window [SPSO, SPEO] holds each fetched
 * record's state, delivery count and, while it is acquired, who holds it and until when. No timers and no I/O:
 * the caller passes the time, reads the log for it and arms a timer at `nextLockExpiryMs()`.
 * [src: core/src/main/java/kafka/server/share/SharePartition.java `acquire`, `acknowledge`, `releaseAcquiredRecords`,
 * `releaseAcquisitionLockOnTimeout`, `maybeUpdateCachedStateAndOffsets`, `updateCacheAndOffsets`, `canAcquireRecords`]
 *
 * Kafka keeps the window as batches that split into per-offset states when they diverge; here it is per offset
 * from the start, which gives the same states and counts.
 */
import type { KafkaError } from '../errors';
import type { AcknowledgeType } from './acknowledgeType';
import { isTerminal, type RecordState } from './recordState';

export interface InFlightRecord {
  state: RecordState;
  deliveryCount: number;
  /** The member holding the acquisition; '' when not acquired. */
  memberId: string;
  /** When the acquisition lock expires (ms); 0 when not acquired. */
  lockExpiresAtMs: number;
  /** An offset with no record (compacted away, a control record): archived when the window reaches it. */
  readonly gap: boolean;
}

/** One record's change of state, for the trace and the checks. */
export interface StateTransition {
  readonly offset: number;
  readonly from: RecordState;
  readonly to: RecordState;
  readonly deliveryCount: number;
  /** The member that held (or now holds) the record. */
  readonly memberId: string;
  readonly cause: TransitionCause;
}

/**
 * Why a record changed state. `dead-letter` and `dead-letter-failed` end the ARCHIVING of the DLQ flow (KIP-1191):
 * the record was written to the dead-letter topic, or the write failed; either way it is ARCHIVED.
 */
export type TransitionCause = 'acquire' | 'accept' | 'release' | 'reject' | 'renew' | 'gap' | 'lock-expired' | 'member-left' | 'log-start' | 'dead-letter' | 'dead-letter-failed';

export interface AcquiredRecord {
  readonly offset: number;
  readonly deliveryCount: number;
}

/** The limits a share-partition runs with (they may change while it runs: a group config altered). */
export interface SharePartitionLimits {
  readonly deliveryCountLimit: number;
  readonly recordLockDurationMs: number;
  readonly maxInFlightRecords: number;
  /**
   * The DLQ flow is on (share.version 2 and a dead-letter topic named for the group): a rejected record, or one
   * released at the delivery-count limit, goes to ARCHIVING instead of ARCHIVED until its DLQ write is done.
   * [src: server/.../share/fetch/InFlightState.java `tryUpdateState` (`dlqSupportEnabled`)]
   */
  readonly dlqEnabled?: boolean;
}

/** An acknowledgement batch: offsets first..last (inclusive) and one type for all. */
export interface AcknowledgementBatch {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly type: AcknowledgeType;
}

export interface AcknowledgeResult {
  /** NONE, or INVALID_RECORD_STATE when an offset is not acquired by this member (nothing then changes). */
  readonly error: KafkaError;
  readonly transitions: readonly StateTransition[];
}

/**
 * What the share coordinator keeps of a share-partition (ShareGroupState: the start offset and the state batches
 * of the window). Locks are not kept: a new leader gets the acquired records back as AVAILABLE.
 * [src: share-coordinator/.../ShareCoordinatorShard.java; WriteShareGroupStateRequest.json `StateBatches`]
 */
export interface PersistedShareState {
  readonly startOffset: number;
  readonly endOffset: number;
  readonly records: readonly { readonly offset: number; readonly state: RecordState; readonly deliveryCount: number; readonly gap: boolean }[];
}

export class SharePartition {
  /** SPSO: the first offset not yet finished. */
  private start: number;
  /** SPEO: the last offset fetched into the window; start - 1 when the window is empty. */
  private end: number;
  private readonly records = new Map<number, InFlightRecord>();

  constructor(
    startOffset: number,
    public limits: SharePartitionLimits,
  ) {
    this.start = startOffset;
    this.end = startOffset - 1;
  }

  /**
   * A share-partition from persisted state: what was acquired is available again, with its delivery count; what
   * was ARCHIVING stays so (its DLQ write is run again). [SharePartition.java `maybeInitialize`]
   */
  static restore(p: PersistedShareState, limits: SharePartitionLimits): SharePartition {
    const sp = new SharePartition(p.startOffset, limits);
    sp.end = Math.max(p.endOffset, p.startOffset - 1);
    for (const r of p.records) {
      sp.records.set(r.offset, { state: r.state === 'ACQUIRED' ? 'AVAILABLE' : r.state, deliveryCount: r.deliveryCount, memberId: '', lockExpiresAtMs: 0, gap: r.gap });
    }
    sp.advanceStartOffset();
    return sp;
  }

  /** The state to persist. */
  snapshot(): PersistedShareState {
    const records: { offset: number; state: RecordState; deliveryCount: number; gap: boolean }[] = [];
    for (let o = this.start; o <= this.end; o++) {
      const r = this.records.get(o);
      if (r) records.push({ offset: o, state: r.state, deliveryCount: r.deliveryCount, gap: r.gap });
    }
    return { startOffset: this.start, endOffset: this.end, records };
  }

  get startOffset(): number {
    return this.start;
  }

  get endOffset(): number {
    return this.end;
  }

  /** The record at `offset` in the window, if any (inspection and tests). */
  record(offset: number): Readonly<InFlightRecord> | undefined {
    return this.records.get(offset);
  }

  /** Records in the window: SPEO - SPSO + 1, or 0 when it is empty. [SharePartition.java `numInFlightRecords`] */
  inFlightCount(): number {
    return this.records.size === 0 ? 0 : this.end - this.start + 1;
  }

  /** The first offset the next fetch would acquire: the lowest AVAILABLE record in the window, else SPEO + 1. [SharePartition.java `nextFetchOffset`] */
  nextFetchOffset(): number {
    for (let o = this.start; o <= this.end; o++) if (this.records.get(o)?.state === 'AVAILABLE') return o;
    return this.end + 1;
  }

  /** Whether a fetch may acquire: records to re-acquire in the window, or fewer in flight than the cap. [SharePartition.java `canAcquireRecords`] */
  canAcquireRecords(): boolean {
    if (this.nextFetchOffset() !== this.end + 1) return true;
    return this.inFlightCount() < this.limits.maxInFlightRecords;
  }

  /**
   * A ShareFetch of `memberId` for at most `maxRecords` records: first the AVAILABLE records of the window in
   * offset order, then new records from the log past SPEO (`readLog(from, max)`: offsets of the records there,
   * in order, below the high watermark) while the in-flight cap allows. Each acquired record's delivery count
   * goes up by one and its lock runs for the group's record lock duration.
   */
  acquire(memberId: string, maxRecords: number, nowMs: number, readLog: (fromOffset: number, max: number) => readonly number[]): { acquired: AcquiredRecord[]; transitions: StateTransition[] } {
    const acquired: AcquiredRecord[] = [];
    const transitions: StateTransition[] = [];
    if (!this.canAcquireRecords()) return { acquired, transitions };
    const take = (offset: number, r: InFlightRecord): void => {
      const from = r.state;
      r.state = 'ACQUIRED';
      r.deliveryCount++;
      r.memberId = memberId;
      r.lockExpiresAtMs = nowMs + this.limits.recordLockDurationMs;
      acquired.push({ offset, deliveryCount: r.deliveryCount });
      transitions.push({ offset, from, to: 'ACQUIRED', deliveryCount: r.deliveryCount, memberId, cause: 'acquire' });
    };
    const limit = this.limits.deliveryCountLimit;
    let alone = false;
    for (let o = this.start; o <= this.end && acquired.length < maxRecords; o++) {
      const r = this.records.get(o);
      if (r?.state !== 'AVAILABLE') continue;
      // A record on its last delivery attempt goes out alone, so that a poison pill does not take a batch of good
      // records down with it. [SharePartition.java `acquireSubsetBatchRecords` (trunk)]
      const last = limit > 2 && r.deliveryCount === limit - 1;
      if (last && acquired.length > 0) {
        alone = true;
        break;
      }
      take(o, r);
      if (last) {
        alone = true;
        break;
      }
    }
    // New records only up to the cap: at most maxInFlightRecords - (SPEO - SPSO + 1) of them.
    // [SharePartition.java `lastOffsetAndMaxRecordsToAcquire` (trunk)]
    const room = alone ? 0 : Math.min(maxRecords - acquired.length, this.limits.maxInFlightRecords - this.inFlightCount());
    if (room > 0) {
      const offsets = readLog(this.end + 1, room);
      for (const offset of offsets) {
        if (offset <= this.end) continue;
        // Offsets the log skipped (compaction, control records) are gaps: archived, never delivered.
        for (let g = this.end + 1; g < offset; g++) {
          this.records.set(g, { state: 'ARCHIVED', deliveryCount: 0, memberId: '', lockExpiresAtMs: 0, gap: true });
          transitions.push({ offset: g, from: 'AVAILABLE', to: 'ARCHIVED', deliveryCount: 0, memberId: '', cause: 'gap' });
        }
        const r: InFlightRecord = { state: 'AVAILABLE', deliveryCount: 0, memberId: '', lockExpiresAtMs: 0, gap: false };
        this.records.set(offset, r);
        this.end = offset;
        take(offset, r);
      }
    }
    this.advanceStartOffset();
    return { acquired, transitions };
  }

  /**
   * Acknowledgements of `memberId`: every offset named must be ACQUIRED by it, else INVALID_RECORD_STATE and
   * nothing changes. ACCEPT finishes a record; RELEASE makes it available again (archived at the delivery-count
   * limit); REJECT and GAP archive it; RENEW keeps it acquired and restarts its lock (KIP-1222).
   * [SharePartition.java `acknowledge`, `acknowledgeBatchRecords`, `updatedState`]
   */
  acknowledge(memberId: string, batches: readonly AcknowledgementBatch[], nowMs: number): AcknowledgeResult {
    for (const b of batches) {
      if (b.lastOffset < b.firstOffset) return { error: 'INVALID_REQUEST', transitions: [] };
      for (let o = b.firstOffset; o <= b.lastOffset; o++) {
        const r = this.records.get(o);
        if (!r || r.state !== 'ACQUIRED' || r.memberId !== memberId) return { error: 'INVALID_RECORD_STATE', transitions: [] };
      }
    }
    const transitions: StateTransition[] = [];
    for (const b of batches) {
      for (let o = b.firstOffset; o <= b.lastOffset; o++) {
        const r = this.records.get(o)!;
        switch (b.type) {
          case 'ACCEPT':
            transitions.push(this.finish(o, r, 'ACKNOWLEDGED', 'accept'));
            break;
          case 'REJECT':
            transitions.push(this.finish(o, r, this.limits.dlqEnabled ? 'ARCHIVING' : 'ARCHIVED', 'reject'));
            break;
          case 'GAP':
            transitions.push(this.finish(o, r, 'ARCHIVED', 'gap'));
            break;
          case 'RELEASE':
            transitions.push(this.release(o, r, 'release'));
            break;
          case 'RENEW':
            r.lockExpiresAtMs = nowMs + this.limits.recordLockDurationMs;
            transitions.push({ offset: o, from: 'ACQUIRED', to: 'ACQUIRED', deliveryCount: r.deliveryCount, memberId, cause: 'renew' });
            break;
        }
      }
    }
    this.advanceStartOffset();
    return { error: 'NONE', transitions };
  }

  /** Releases every acquisition whose lock expired by `nowMs`. [SharePartition.java `releaseAcquisitionLockOnTimeout`] */
  expireLocks(nowMs: number): StateTransition[] {
    const out: StateTransition[] = [];
    for (let o = this.start; o <= this.end; o++) {
      const r = this.records.get(o);
      if (r?.state === 'ACQUIRED' && r.lockExpiresAtMs <= nowMs) out.push(this.release(o, r, 'lock-expired'));
    }
    this.advanceStartOffset();
    return out;
  }

  /** The earliest lock expiry in the window, or null when nothing is acquired. */
  nextLockExpiryMs(): number | null {
    let next: number | null = null;
    for (const r of this.records.values()) if (r.state === 'ACQUIRED' && (next === null || r.lockExpiresAtMs < next)) next = r.lockExpiresAtMs;
    return next;
  }

  /** A member's share session closed (it left, or was removed): what it held is released. [SharePartition.java `releaseAcquiredRecords`] */
  releaseMember(memberId: string): StateTransition[] {
    const out: StateTransition[] = [];
    for (let o = this.start; o <= this.end; o++) {
      const r = this.records.get(o);
      if (r?.state === 'ACQUIRED' && r.memberId === memberId) out.push(this.release(o, r, 'member-left'));
    }
    this.advanceStartOffset();
    return out;
  }

  /**
   * The log start moved (retention, DeleteRecords): records below it can never be delivered again, so they are
   * archived and SPSO moves up to it. [SharePartition.java `updateCacheAndOffsets`, `archiveRecords`]
   */
  archiveBelowLogStart(logStartOffset: number): StateTransition[] {
    if (logStartOffset <= this.start) return [];
    const out: StateTransition[] = [];
    for (let o = this.start; o < logStartOffset && o <= this.end; o++) {
      const r = this.records.get(o);
      if (r && !isTerminal(r.state)) out.push(this.finish(o, r, 'ARCHIVED', 'log-start'));
      this.records.delete(o);
    }
    this.start = logStartOffset;
    if (this.end < this.start - 1) this.end = this.start - 1;
    this.advanceStartOffset();
    return out;
  }

  /**
   * Phase 2 of the DLQ flow is over for `offset` (written to the dead-letter topic, or the write failed): an
   * ARCHIVING record becomes ARCHIVED; anything else (archived meanwhile below the log start) is left alone.
   * [src: core/.../server/share/SharePartition.java: the DLQ future's completion archives the records]
   */
  completeArchiving(offset: number, written: boolean): StateTransition[] {
    const r = this.records.get(offset);
    if (r?.state !== 'ARCHIVING') return [];
    const t = this.finish(offset, r, 'ARCHIVED', written ? 'dead-letter' : 'dead-letter-failed');
    this.advanceStartOffset();
    return [t];
  }

  /** The records waiting for their DLQ write (ARCHIVING), in offset order, with their delivery counts. */
  archiving(): AcquiredRecord[] {
    const out: AcquiredRecord[] = [];
    for (let o = this.start; o <= this.end; o++) {
      const r = this.records.get(o);
      if (r?.state === 'ARCHIVING') out.push({ offset: o, deliveryCount: r.deliveryCount });
    }
    return out;
  }

  /**
   * Released records go back to AVAILABLE, or are archived once delivered `deliveryCountLimit` times (ARCHIVING
   * when the DLQ flow is on). [SharePartition.java `updatedState`; InFlightState.java `tryUpdateState`; RecordState]
   */
  private release(offset: number, r: InFlightRecord, cause: TransitionCause): StateTransition {
    if (r.deliveryCount >= this.limits.deliveryCountLimit) return this.finish(offset, r, this.limits.dlqEnabled ? 'ARCHIVING' : 'ARCHIVED', cause);
    const memberId = r.memberId;
    r.state = 'AVAILABLE';
    r.memberId = '';
    r.lockExpiresAtMs = 0;
    return { offset, from: 'ACQUIRED', to: 'AVAILABLE', deliveryCount: r.deliveryCount, memberId, cause };
  }

  private finish(offset: number, r: InFlightRecord, to: 'ACKNOWLEDGED' | 'ARCHIVING' | 'ARCHIVED', cause: TransitionCause): StateTransition {
    const from = r.state;
    const memberId = r.memberId;
    r.state = to;
    r.memberId = '';
    r.lockExpiresAtMs = 0;
    return { offset, from, to, deliveryCount: r.deliveryCount, memberId, cause };
  }

  /** SPSO moves past the run of finished records at the start of the window; they leave the window. [SharePartition.java `maybeUpdateCachedStateAndOffsets`] */
  private advanceStartOffset(): void {
    for (;;) {
      const r = this.records.get(this.start);
      if (!r || !isTerminal(r.state)) break;
      this.records.delete(this.start);
      this.start++;
    }
    if (this.records.size === 0 && this.end < this.start - 1) this.end = this.start - 1;
  }
}
