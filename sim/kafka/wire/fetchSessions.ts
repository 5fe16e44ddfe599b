import type { Random } from '../../core/random';

/**
 * Incremental fetch sessions (KIP-227) [core/src/main/scala/kafka/server/FetchSession.scala: FetchSessionCache,
 * FetchSession, CachedPartition; clients/.../requests/FetchMetadata.java]. A client that opens a session
 * (session id 0, epoch 0) gets an id; its later fetches (epoch 1, 2, ...) list only the partitions whose fetch
 * state changed, and the broker answers only the partitions with something new: records, an error, or a
 * changed high watermark, last stable offset or log start offset. Epoch -1 fetches without a session.
 */

export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;

/** [FetchMetadata.nextEpoch]: after Integer.MAX_VALUE comes 1. */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === 0x7fffffff ? 1 : epoch + 1;
}

/** A partition's fetch state as the client last sent it, and what the broker last told it. */
export interface CachedPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  fetchOffset: number;
  currentLeaderEpoch: number;
  lastFetchedEpoch: number;
  logStartOffset: number;
  maxBytes: number;
  /** Last reported high watermark, last stable offset and log start offset (-1 before any response). */
  highWatermark: number;
  lastStableOffset: number;
  localLogStartOffset: number;
}

export type PartitionUpdate = Omit<CachedPartition, 'highWatermark' | 'lastStableOffset' | 'localLogStartOffset'>;

export class FetchSession {
  /** The epoch the next incremental fetch must carry. */
  epoch: number;
  lastUsedMs: number;
  /** In iteration order: partitions that returned data move to the end so that none starves. */
  readonly partitions = new Map<string, CachedPartition>();
  constructor(
    readonly id: number,
    nowMs: number,
  ) {
    this.epoch = nextEpoch(INITIAL_EPOCH);
    this.lastUsedMs = nowMs;
  }
}

export const sessionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

function cached(u: PartitionUpdate): CachedPartition {
  return { ...u, highWatermark: -1, lastStableOffset: -1, localLogStartOffset: -1 };
}

/** How one fetch relates to sessions [FetchManager.newContext]. */
export type FetchContext =
  | { readonly kind: 'error'; readonly error: 'FETCH_SESSION_ID_NOT_FOUND' | 'INVALID_FETCH_SESSION_EPOCH' }
  /** A full fetch: `open` when the client asked for a new session (epoch 0). */
  | { readonly kind: 'full'; readonly open: boolean }
  | { readonly kind: 'incremental'; readonly session: FetchSession };

export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();

  constructor(
    private readonly maxSlots: number,
    private readonly evictionMs: number,
    private readonly random: Random,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * The context of a fetch with `sessionId` and `epoch`. An incremental fetch updates the session's partitions
   * (`updates` added or changed, `forgotten` removed) and advances its epoch.
   */
  newContext(sessionId: number, epoch: number, updates: readonly PartitionUpdate[], forgotten: readonly { topic: string; partition: number }[], nowMs: number): FetchContext {
    if (epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH) {
      // A full fetch closes the session it names, if any, and may open a new one.
      if (sessionId !== INVALID_SESSION_ID) this.sessions.delete(sessionId);
      return { kind: 'full', open: epoch === INITIAL_EPOCH };
    }
    const s = this.sessions.get(sessionId);
    if (!s) return { kind: 'error', error: 'FETCH_SESSION_ID_NOT_FOUND' };
    if (s.epoch !== epoch) return { kind: 'error', error: 'INVALID_FETCH_SESSION_EPOCH' };
    for (const f of forgotten) s.partitions.delete(sessionKey(f.topic, f.partition));
    for (const u of updates) {
      const k = sessionKey(u.topic, u.partition);
      const old = s.partitions.get(k);
      if (old) Object.assign(old, u);
      else s.partitions.set(k, cached(u));
    }
    s.epoch = nextEpoch(epoch);
    s.lastUsedMs = nowMs;
    return { kind: 'incremental', session: s };
  }

  /**
   * After a full fetch that asked for a session: a new session holding `partitions`, or null when every slot is
   * taken by a session used within min.incremental.fetch.session.eviction.ms [FetchSessionCache.maybeCreateSession].
   */
  maybeCreate(partitions: readonly PartitionUpdate[], nowMs: number): FetchSession | null {
    if (this.maxSlots <= 0) return null;
    if (this.sessions.size >= this.maxSlots) {
      let oldest: FetchSession | undefined;
      for (const s of this.sessions.values()) if (!oldest || s.lastUsedMs < oldest.lastUsedMs) oldest = s;
      if (!oldest || nowMs - oldest.lastUsedMs < this.evictionMs) return null;
      this.sessions.delete(oldest.id);
    }
    let id: number;
    do id = this.random.int(1, 0x7fffffff);
    while (this.sessions.has(id));
    const s = new FetchSession(id, nowMs);
    for (const p of partitions) s.partitions.set(sessionKey(p.topic, p.partition), cached(p));
    this.sessions.set(id, s);
    return s;
  }
}

/** What a fetch response says of one partition, as far as a session must remember it. */
export interface PartitionOutcome {
  readonly error: boolean;
  readonly hasRecords: boolean;
  readonly hasDivergingEpoch: boolean;
  readonly highWatermark: number;
  readonly lastStableOffset: number;
  readonly logStartOffset: number;
}

/**
 * Whether an incremental response must carry this partition; updates what the session remembers either way
 * [CachedPartition.maybeUpdateResponseData].
 */
export function mustRespond(p: CachedPartition, o: PartitionOutcome): boolean {
  let changed = o.error || o.hasRecords || o.hasDivergingEpoch;
  if (p.highWatermark !== o.highWatermark) {
    p.highWatermark = o.highWatermark;
    changed = true;
  }
  if (p.lastStableOffset !== o.lastStableOffset) {
    p.lastStableOffset = o.lastStableOffset;
    changed = true;
  }
  if (p.localLogStartOffset !== o.logStartOffset) {
    p.localLogStartOffset = o.logStartOffset;
    changed = true;
  }
  return changed;
}
