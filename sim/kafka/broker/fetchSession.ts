/**
 * Incremental fetch sessions on the broker (KIP-227) [src: core/src/main/scala/kafka/server/FetchSession.scala]:
 * a fetcher's first (full) request creates a session holding every partition it fetches; later (incremental)
 * requests carry only the partitions that changed and the ones to forget, and the session supplies the rest.
 * A response to an incremental request leaves out every partition with nothing new for the fetcher.
 */
import type { Random } from '../../core/random';
import type { KafkaError } from '../errors';
import type { FetchPartition, FetchPartitionResponse, FetchRequest } from '../protocol';
import { tpKey } from '../protocol';
import type { EmptyReadMemo, QuietReader } from './partition';
import type { FollowerState } from './rules/followerState';

/** [src: FetchMetadata.INVALID_SESSION_ID, INITIAL_EPOCH, FINAL_EPOCH] */
export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;

/** The epoch after `epoch`: wraps from Integer.MAX_VALUE to 1 [src: FetchMetadata.nextEpoch]. */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  if (epoch === 0x7fffffff) return 1;
  return epoch + 1;
}

/** A full request (a new session, or none): epoch INITIAL or FINAL [src: FetchMetadata.isFull]. */
export function isFullFetch(epoch: number): boolean {
  return epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH;
}

/**
 * One partition of a session: the fetcher's last request for it, and the HW and log start offset it was last
 * told. It is the FetchPartition a read uses, updated in place by later requests. [src: CachedPartition]
 */
export class CachedPartition implements FetchPartition, EmptyReadMemo, QuietReader {
  fetchOffset: number;
  lastFetchedEpoch: number;
  currentLeaderEpoch: number;
  logStartOffset: number;
  maxBytes: number;
  /** The HW the fetcher was last sent; -1 after an error, so the partition is sent again once it clears. */
  highWatermark = -1;
  /** The leader's log start offset the fetcher was last sent. */
  localLogStartOffset = -1;
  /** In a session: it returned records in the response being made, so it moves to the end. */
  movesLast = false;
  /** The broker's replica of it as last looked up (ReplicaManager's), and the partition-set version of that lookup. */
  local: object | undefined = undefined;
  localVersion = -1;
  /** Its last read that found nothing, while the request stays the same (see EmptyReadMemo). */
  memoVersion = -1;
  memoReplicaId = -1;
  memoCommitted = false;
  memoLogEndOffset = -1;
  memoHighWatermark = -1;
  memoLogStartOffset = -1;
  memoLastStableOffset = -1;
  memoFollower: FollowerState | null = null;
  /** The delayed-fetch watchers of its partition (ReplicaManager's; an entry never removed), once looked up. */
  watchers: object | undefined = undefined;
  /**
   * Quiet: its memo holds and the fetcher was told the HW and log start it has, so a read of its session would
   * return nothing for it and leave it out; its partition wakes it (wakeQuiet) on any change that could alter that.
   */
  quiet = false;
  /** The session it belongs to (null: a full or sessionless request's own), its index there, and whether it is in the session's loud list. */
  session: FetchSession | null = null;
  pos = -1;
  listed = false;
  /** In its session's quietList (an entry may be stale: it woke since). */
  inQuietList = false;
  /** The partition it is registered with as a quiet reader, and that partition's wake count then (no duplicate entries). */
  quietOn: object | null = null;
  quietWakes = -1;
  /** The session read in which it was quiet at the start (its follower's repeated fetch is recorded at the end of that read). */
  quietRound = 0;

  constructor(
    readonly topic: string,
    readonly partition: number,
    req: FetchPartition,
    readonly key: string = tpKey(topic, partition),
  ) {
    this.fetchOffset = req.fetchOffset;
    this.lastFetchedEpoch = req.lastFetchedEpoch;
    this.currentLeaderEpoch = req.currentLeaderEpoch;
    this.logStartOffset = req.logStartOffset;
    this.maxBytes = req.maxBytes;
  }

  /** [src: CachedPartition.updateRequestParams] */
  updateRequestParams(req: FetchPartition): void {
    this.memoVersion = -1;
    this.wakeQuiet();
    this.fetchOffset = req.fetchOffset;
    this.lastFetchedEpoch = req.lastFetchedEpoch;
    this.currentLeaderEpoch = req.currentLeaderEpoch;
    this.logStartOffset = req.logStartOffset;
    this.maxBytes = req.maxBytes;
  }

  /**
   * Whether a response with no records, no error and no diverging epoch must still carry this partition: its HW
   * or log start offset is not what the fetcher was last told. [src: CachedPartition.maybeUpdateResponseData]
   */
  changed(highWatermark: number, logStartOffset: number): boolean {
    return highWatermark !== this.highWatermark || logStartOffset !== this.localLogStartOffset;
  }

  /** No longer quiet: its session's next read visits it again. */
  wakeQuiet(): void {
    if (!this.quiet) return;
    this.quiet = false;
    const s = this.session;
    if (s !== null) s.markLoud(this);
  }

  /** Remembers what a response told the fetcher (errors reset the HW to -1). [src: maybeUpdateResponseData] */
  noteSent(r: FetchPartitionResponse): void {
    if (r.error !== 'NONE') {
      this.highWatermark = -1;
      return;
    }
    this.highWatermark = r.highWatermark;
    this.localLogStartOffset = r.logStartOffset;
  }
}

/** A session: its id, epoch and partitions in order. [src: FetchSession] */
export class FetchSession {
  /** The session's partitions in the order they are read (partitions that returned data move last). */
  private list: CachedPartition[] = [];
  private readonly byKey = new Map<string, CachedPartition>();
  /** The partition count the cache last accounted for (-1: not in the cache). */
  cachedSize = -1;
  /** The partitions a read visits: every one not quiet, in session order unless `loudSorted` is false. */
  loud: CachedPartition[] = [];
  loudSorted = true;
  /** A follower's session: partitions made quiet (some may have woken since; dropped at the next read). */
  quietList: CachedPartition[] = [];
  /** Counts partitions woken from quiet: a read sees whether one of its own woke meanwhile. */
  wakes = 0;
  /** The replica id and isolation its quiet partitions were read with (another request's reads them again). */
  quietReplicaId = -1;
  quietCommitted = false;
  /** A read of it is under way (a read started meanwhile, by what the first set off, reads every partition). */
  reading = false;
  /** Its delayed fetch (ReplicaManager's), parked once for the whole session: each partition's watchers list the session's partitions, not each fetch. */
  parked: object | null = null;
  /** Partitions not yet listed with their partition's watchers (the next park lists them). */
  readonly unwatched: CachedPartition[] = [];
  /** Gone from the cache (closed or evicted): its partitions' watcher entries may go once nothing is parked. */
  closed = false;

  constructor(
    readonly id: number,
    /** Created by a follower (privileged: only another follower's session can evict it early). */
    readonly privileged: boolean,
    readonly creationMs: number,
    public lastUsedMs: number,
    public epoch: number,
  ) {}

  get size(): number {
    return this.list.length;
  }

  /** The partitions, in the order a fetch reads them. */
  get partitions(): readonly CachedPartition[] {
    return this.list;
  }

  get(key: string): CachedPartition | undefined {
    return this.byKey.get(key);
  }

  add(cp: CachedPartition): void {
    this.byKey.set(cp.key, cp);
    cp.session = this;
    cp.pos = this.list.length;
    this.list.push(cp);
    cp.quiet = false;
    cp.listed = false;
    this.markLoud(cp);
    this.unwatched.push(cp);
  }

  /** A partition the next read must visit (it woke, or is new). */
  markLoud(cp: CachedPartition): void {
    this.wakes++;
    if (cp.listed) return;
    cp.listed = true;
    const n = this.loud.length;
    if (n > 0 && this.loud[n - 1]!.pos > cp.pos) this.loudSorted = false;
    this.loud.push(cp);
  }

  /** Every quiet partition wakes (a request with another replica id or isolation level). */
  wakeAll(): void {
    for (const cp of this.list) cp.wakeQuiet();
  }

  /** The loud list in session order (a wake may have appended out of order). */
  sortedLoud(): readonly CachedPartition[] {
    if (!this.loudSorted) {
      // Insertion sort in place: a few entries, mostly in order already (no allocation, unlike Array.sort).
      const a = this.loud;
      for (let i = 1; i < a.length; i++) {
        const cp = a[i]!;
        let j = i - 1;
        while (j >= 0 && a[j]!.pos > cp.pos) {
          a[j + 1] = a[j]!;
          j--;
        }
        a[j + 1] = cp;
      }
      this.loudSorted = true;
    }
    return this.loud;
  }

  /** Makes loud partitions that `isQuiet` says are quiet leave the loud list (the order of the rest kept). */
  settleLoud(isQuiet: (cp: CachedPartition) => boolean): void {
    const loud = this.loud;
    let n = 0;
    for (let i = 0; i < loud.length; i++) {
      const cp = loud[i]!;
      if (!cp.quiet && isQuiet(cp)) {
        cp.quiet = true;
        cp.listed = false;
        // A follower's fetch is still recorded for it on each read.
        if (cp.memoFollower !== null && !cp.inQuietList) {
          cp.inQuietList = true;
          this.quietList.push(cp);
        }
        continue;
      }
      loud[n++] = cp;
    }
    loud.length = n;
  }

  /** The follower's partitions quiet now (the list compacted to them), for its repeated fetches. */
  quietNow(): CachedPartition[] {
    const q = this.quietList;
    let n = 0;
    for (let i = 0; i < q.length; i++) {
      const cp = q[i]!;
      if (cp.quiet) q[n++] = cp;
      else cp.inQuietList = false;
    }
    q.length = n;
    return q;
  }

  private renumber(): void {
    for (let i = 0; i < this.list.length; i++) this.list[i]!.pos = i;
    this.loudSorted = false;
  }

  /** Adds, updates and forgets partitions as an incremental request says. [src: FetchSession.update] */
  update(req: FetchRequest): void {
    for (const fp of req.partitions) {
      const key = tpKey(fp.topic, fp.partition);
      const cached = this.byKey.get(key);
      if (cached) cached.updateRequestParams(fp);
      else this.add(new CachedPartition(fp.topic, fp.partition, fp, key));
    }
    if (req.forgottenTopicsData.length === 0) return;
    for (const tp of req.forgottenTopicsData) {
      const key = tpKey(tp.topic, tp.partition);
      const cp = this.byKey.get(key);
      if (cp === undefined) continue;
      this.byKey.delete(key);
      // Gone from the session: a wake of its partition no longer concerns it.
      cp.session = null;
      cp.quiet = false;
    }
    this.list = this.list.filter((cp) => this.byKey.get(cp.key) === cp);
    this.loud = this.loud.filter((cp) => cp.session === this);
    this.quietList = this.quietList.filter((cp) => {
      if (cp.session === this) return true;
      cp.inQuietList = false;
      return false;
    });
    this.renumber();
  }

  /** Partitions marked movesLast go to the end, in their order. [src: IncrementalFetchContext.PartitionIterator] */
  moveMarkedLast(): void {
    const stay: CachedPartition[] = [];
    const last: CachedPartition[] = [];
    for (const cp of this.list) {
      if (cp.movesLast) {
        cp.movesLast = false;
        last.push(cp);
      } else stay.push(cp);
    }
    for (const cp of last) stay.push(cp);
    this.list = stay;
    this.renumber();
  }
}


/**
 * One shard of the session cache: at most `maxEntries` sessions with ids in its range; when full, a new session
 * may evict a stale one (unused for evictionMs), or the least valuable one (unprivileged before privileged, then
 * fewer partitions, then the lower id) that is older than evictionMs and worth less than the newcomer.
 * [src: FetchSessionCacheShard `maybeCreateSession`, `tryEvict`, `touch`, `newSessionId`]
 */
export class FetchSessionCacheShard {
  private readonly sessions = new Map<number, FetchSession>();

  constructor(
    private readonly maxEntries: number,
    private readonly evictionMs: number,
    private readonly idLow: number,
    private readonly idHigh: number,
    private readonly random: Random,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  owns(id: number): boolean {
    return id >= this.idLow && id < this.idHigh;
  }

  remove(id: number): FetchSession | undefined {
    const s = this.sessions.get(id);
    if (s) this.drop(s);
    return s;
  }

  private drop(s: FetchSession): void {
    this.sessions.delete(s.id);
    s.closed = true;
  }

  touch(s: FetchSession, nowMs: number): void {
    s.lastUsedMs = nowMs;
    s.cachedSize = s.size;
  }

  /** A new session for `partitions` if there is room (maybe after an eviction); its id, or INVALID_SESSION_ID. */
  maybeCreateSession(nowMs: number, privileged: boolean, partitions: readonly CachedPartition[]): FetchSession | null {
    if (this.sessions.size >= this.maxEntries && !this.tryEvict(privileged, partitions.length, nowMs)) return null;
    const s = new FetchSession(this.newSessionId(), privileged, nowMs, nowMs, nextEpoch(INITIAL_EPOCH));
    for (const cp of partitions) s.add(cp);
    this.sessions.set(s.id, s);
    this.touch(s, nowMs);
    return s;
  }

  private newSessionId(): number {
    let id: number;
    do id = this.random.int(Math.max(1, this.idLow), this.idHigh);
    while (this.sessions.has(id) || id === INVALID_SESSION_ID);
    return id;
  }

  private tryEvict(privileged: boolean, size: number, nowMs: number): boolean {
    let stalest: FetchSession | null = null;
    for (const s of this.sessions.values()) {
      if (stalest === null || s.lastUsedMs < stalest.lastUsedMs || (s.lastUsedMs === stalest.lastUsedMs && s.id < stalest.id)) stalest = s;
    }
    if (stalest === null) return false;
    if (nowMs - stalest.lastUsedMs > this.evictionMs) {
      this.drop(stalest);
      return true;
    }
    // Sessions old enough to be evicted: by anyone if older than evictionMs; a follower may also take an
    // unprivileged consumer's session at any age.
    let victim: FetchSession | null = null;
    for (const s of this.sessions.values()) {
      const oldEnough = nowMs - s.creationMs > this.evictionMs;
      if (!(oldEnough || (privileged && !s.privileged))) continue;
      if (victim === null || compareEvictable(s, victim) < 0) victim = s;
    }
    if (victim === null) return false;
    if (compareEvictableKey(privileged, size, 0, victim) < 0) return false;
    this.drop(victim);
    return true;
  }
}

/** EvictableKey order: (privileged, size, id). [src: EvictableKey.compareTo] */
function compareEvictable(a: FetchSession, b: FetchSession): number {
  return compareEvictableKey(a.privileged, a.cachedSize, a.id, b);
}

function compareEvictableKey(privileged: boolean, size: number, id: number, b: FetchSession): number {
  if (privileged !== b.privileged) return privileged ? 1 : -1;
  if (size !== b.cachedSize) return size - b.cachedSize;
  return id - b.id;
}

/** Kafka shards the cache by request handler thread; new sessions go to the shards in turn. [src: KafkaBroker.NumFetchSessionCacheShards] */
export const FETCH_SESSION_CACHE_SHARDS = 8;
/** A session unused this long may be evicted by any newcomer. [src: KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS] */
export const MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120_000;

/**
 * How a fetch is served [src: FetchContext and its kinds]: `error` answers at once with a session error and no
 * partitions; `sessionless` (a FINAL epoch) and `full` read the request's partitions and answer all of them (a
 * full one also creates a session); `incremental` reads every partition of the session and answers the ones
 * that changed.
 */
export type FetchContext =
  | { readonly kind: 'error'; readonly error: KafkaError }
  | { readonly kind: 'sessionless'; readonly partitions: readonly CachedPartition[] }
  | { readonly kind: 'full'; readonly partitions: readonly CachedPartition[]; readonly privileged: boolean }
  | { readonly kind: 'incremental'; readonly session: FetchSession; readonly expectedEpoch: number };

const NO_PARTITIONS: readonly CachedPartition[] = Object.freeze([]);

/** The partitions a context reads, in order. */
export function contextPartitions(ctx: FetchContext): readonly CachedPartition[] {
  if (ctx.kind === 'incremental') return ctx.session.partitions;
  return ctx.kind === 'error' ? NO_PARTITIONS : ctx.partitions;
}

/** The broker's fetch session cache and the rules that turn a request into a context. [src: FetchManager, FetchSessionCache] */
export class FetchManager {
  private readonly shards: FetchSessionCacheShard[];
  private nextShard = 0;
  /** Told before a request changes a session that has a fetch parked (ReplicaManager's). */
  onSessionUpdate: ((s: FetchSession) => void) | null = null;

  constructor(cacheSlots: number, random: Random) {
    const range = Math.floor(0x7fffffff / FETCH_SESSION_CACHE_SHARDS);
    this.shards = Array.from(
      { length: FETCH_SESSION_CACHE_SHARDS },
      (_, n) => new FetchSessionCacheShard(Math.floor(cacheSlots / FETCH_SESSION_CACHE_SHARDS), MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, n * range, (n + 1) * range, random.fork(`shard-${n}`)),
    );
  }

  /** Sessions in the cache. */
  get sessionCount(): number {
    let n = 0;
    for (const s of this.shards) n += s.size;
    return n;
  }

  private shardOf(id: number): FetchSessionCacheShard | undefined {
    return this.shards.find((s) => s.owns(id));
  }

  /** [src: FetchManager.newContext] */
  newContext(req: FetchRequest, isFollower: boolean, nowMs: number): FetchContext {
    if (isFullFetch(req.sessionEpoch)) {
      // Any session a full request names is closed.
      if (req.sessionId !== INVALID_SESSION_ID) this.shardOf(req.sessionId)?.remove(req.sessionId);
      const partitions = req.partitions.map((fp) => new CachedPartition(fp.topic, fp.partition, fp));
      if (req.sessionEpoch === FINAL_EPOCH) return { kind: 'sessionless', partitions };
      return { kind: 'full', partitions, privileged: isFollower };
    }
    const shard = this.shardOf(req.sessionId);
    const session = shard?.get(req.sessionId);
    if (!shard || !session) return { kind: 'error', error: 'FETCH_SESSION_ID_NOT_FOUND' };
    if (session.epoch !== req.sessionEpoch) return { kind: 'error', error: 'INVALID_FETCH_SESSION_EPOCH' };
    // A fetch still parked on the session keeps watching the partitions it was parked on.
    if (session.parked !== null) this.onSessionUpdate?.(session);
    session.update(req);
    if (session.size === 0) {
      // Nothing left to fetch: the session closes and the request is answered without one.
      shard.remove(session.id);
      return { kind: 'sessionless', partitions: req.partitions.map((fp) => new CachedPartition(fp.topic, fp.partition, fp)) };
    }
    shard.touch(session, nowMs);
    session.epoch = nextEpoch(session.epoch);
    return { kind: 'incremental', session, expectedEpoch: nextEpoch(req.sessionEpoch) };
  }

  /**
   * The response's session id and its partitions, from what the read produced: a full context creates the session
   * (id 0 when the cache has no room), an incremental one checks the epoch did not move meanwhile, remembers what
   * it tells the fetcher, and moves partitions that returned records to the end. [src: FetchContext
   * `updateAndGenerateResponseData`]
   */
  respond(ctx: FetchContext, nowMs: number, partitions: FetchPartitionResponse[]): { error: KafkaError; sessionId: number; partitions: FetchPartitionResponse[] } {
    switch (ctx.kind) {
      case 'error':
        return { error: ctx.error, sessionId: INVALID_SESSION_ID, partitions: [] };
      case 'sessionless':
        return { error: 'NONE', sessionId: INVALID_SESSION_ID, partitions };
      case 'full': {
        for (let i = 0; i < partitions.length; i++) ctx.partitions[i]!.noteSent(partitions[i]!);
        const shard = this.shards[this.nextShard]!;
        this.nextShard = (this.nextShard + 1) % this.shards.length;
        const session = shard.maybeCreateSession(nowMs, ctx.privileged, ctx.partitions);
        return { error: 'NONE', sessionId: session ? session.id : INVALID_SESSION_ID, partitions };
      }
      case 'incremental': {
        const s = ctx.session;
        if (s.epoch !== ctx.expectedEpoch) return { error: 'INVALID_FETCH_SESSION_EPOCH', sessionId: s.id, partitions: [] };
        let moved = false;
        for (const r of partitions) {
          const cp = s.get(tpKey(r.topic, r.partition));
          if (!cp) continue;
          cp.noteSent(r);
          if (r.batches.length > 0) moved = cp.movesLast = true;
        }
        if (moved) s.moveMarkedLast();
        return { error: 'NONE', sessionId: s.id, partitions };
      }
    }
  }
}
