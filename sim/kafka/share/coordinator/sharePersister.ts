/**
 * The share-partition leader's side of the share coordinator: ReadShareGroupState when a share-partition is
 * initialised (its leader epoch fences the writes of older leaders), WriteShareGroupState after each change, to
 * the leader of the key's `__share_group_state` partition (this broker's own coordinator, or another broker).
 * Writes of one share-partition go one at a time, the newest state replacing any that waited; failed requests
 * are retried with backoff while this broker still leads the share-partition in the same epoch.
 * [src: server-common/.../share/persister/DefaultStatePersister.java, PersisterStateManager.java
 * (`ReadStateHandler`, `WriteStateHandler`, backoff)]
 */
import { ms, type Micros } from '../../../core/time';
import type { KafkaError } from '../../errors';
import type { Outcome } from '../../net/networkClient';
import { RECORD_STATE_ID, type RecordState } from '../recordState';
import type { PersistedShareState } from '../sharePartition';
import type { PersisterStateBatch, ReadShareGroupStateRequest, ReadShareGroupStateResponse, WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '../shareProtocol';
import { SHARE_GROUP_STATE_TOPIC, shareStatePartition } from './shareCoordinatorKey';
import type { ShareCoordinatorService } from './shareCoordinatorService';

/** Where share-partition state is read from and written to. */
export interface SharePersister {
  /** The persisted state (null: never written), once read; not called if the leader epoch is no longer current. */
  read(group: string, topic: string, partition: number, leaderEpoch: number, done: (state: PersistedShareState | null) => void): void;
  write(group: string, topic: string, partition: number, leaderEpoch: number, state: PersistedShareState): void;
}

export interface PersisterHost {
  readonly brokerId: number;
  readonly now: Micros;
  readonly numPartitions: number;
  setTimer(delay: Micros, fn: () => void): void;
  topicId(topic: string): string | undefined;
  /** The leader of a partition of __share_group_state per this broker's metadata, or -1. */
  stateLeader(partition: number): number;
  /** This broker's own share coordinator. */
  readonly local: ShareCoordinatorService;
  sendToBroker<Req extends { type: string }, Resp>(brokerId: number, request: Req, timeoutMs: number, done: (o: Outcome<Resp>) => void): void;
  /** Whether this broker still leads the share-partition in `leaderEpoch`. */
  isCurrent(topic: string, partition: number, leaderEpoch: number): boolean;
}

/** [PersisterStateManager.java `REQUEST_BACKOFF_MS`, `REQUEST_BACKOFF_MAX_MS`] */
const BACKOFF_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
const REQUEST_TIMEOUT_MS = 30_000;

const STATE_OF_ID: readonly RecordState[] = ['AVAILABLE', 'ACQUIRED', 'ACKNOWLEDGED', 'ARCHIVING', 'ARCHIVED'];

/** The window as state batches: runs of offsets with one state and one count (a gap is ARCHIVED, count 0). */
export function toStateBatches(s: PersistedShareState): PersisterStateBatch[] {
  const out: PersisterStateBatch[] = [];
  for (const r of s.records) {
    const id = RECORD_STATE_ID[r.state];
    const count = r.gap ? 0 : r.deliveryCount;
    const last = out[out.length - 1];
    if (last && last.lastOffset === r.offset - 1 && last.deliveryState === id && last.deliveryCount === count) out[out.length - 1] = { ...last, lastOffset: r.offset };
    else out.push({ firstOffset: r.offset, lastOffset: r.offset, deliveryState: id, deliveryCount: count });
  }
  return out;
}

/** A read's answer as a share-partition's persisted state; null when nothing was written. */
export function fromStateBatches(startOffset: number, batches: readonly PersisterStateBatch[]): PersistedShareState | null {
  if (startOffset < 0) return null;
  const records: { offset: number; state: RecordState; deliveryCount: number; gap: boolean }[] = [];
  let end = startOffset - 1;
  for (const b of batches) {
    for (let o = Math.max(b.firstOffset, startOffset); o <= b.lastOffset; o++) {
      const state = STATE_OF_ID[b.deliveryState] ?? 'AVAILABLE';
      records.push({ offset: o, state, deliveryCount: b.deliveryCount, gap: state === 'ARCHIVED' && b.deliveryCount === 0 });
      end = Math.max(end, o);
    }
  }
  return { startOffset, endOffset: end, records };
}

const retriable = (e: KafkaError): boolean => e !== 'NONE' && e !== 'FENCED_LEADER_EPOCH';

interface Writer {
  inFlight: boolean;
  next: { leaderEpoch: number; state: PersistedShareState } | null;
}

export class DefaultStatePersister implements SharePersister {
  private readonly writers = new Map<string, Writer>();

  constructor(private readonly host: PersisterHost) {}

  read(group: string, topic: string, partition: number, leaderEpoch: number, done: (state: PersistedShareState | null) => void): void {
    const attempt = (n: number): void => {
      if (!this.host.isCurrent(topic, partition, leaderEpoch)) return;
      const topicId = this.host.topicId(topic);
      if (topicId === undefined) return this.retry(n, attempt);
      const req = { groupId: group, topicId, partition, leaderEpoch };
      this.call<Omit<ReadShareGroupStateRequest, 'correlationId'>, ReadShareGroupStateResponse>(
        shareStatePartition(group, topicId, partition, this.host.numPartitions),
        { type: 'ReadShareGroupState', ...req },
        (cb) => this.host.local.read(req, (r) => cb({ type: 'ReadShareGroupStateResponse', correlationId: -1, ...r })),
        (r) => {
          if (r.error === 'NONE') done(fromStateBatches(r.startOffset, r.stateBatches));
          else if (retriable(r.error)) this.retry(n, attempt);
        },
      );
    };
    attempt(0);
  }

  write(group: string, topic: string, partition: number, leaderEpoch: number, state: PersistedShareState): void {
    const k = `${group}\u0000${topic}\u0000${partition}`;
    let w = this.writers.get(k);
    if (!w) this.writers.set(k, (w = { inFlight: false, next: null }));
    w.next = { leaderEpoch, state };
    if (!w.inFlight) this.flush(k, w, group, topic, partition);
  }

  private flush(k: string, w: Writer, group: string, topic: string, partition: number): void {
    const job = w.next;
    if (!job) {
      this.writers.delete(k);
      return;
    }
    w.next = null;
    w.inFlight = true;
    const finish = (): void => {
      w.inFlight = false;
      this.flush(k, w, group, topic, partition);
    };
    const attempt = (n: number): void => {
      // A newer state replaces this one; a lost leadership ends the writes of the old epoch.
      if (w.next !== null || !this.host.isCurrent(topic, partition, job.leaderEpoch)) return finish();
      const topicId = this.host.topicId(topic);
      if (topicId === undefined) return this.retry(n, attempt);
      const req = { groupId: group, topicId, partition, leaderEpoch: job.leaderEpoch, startOffset: job.state.startOffset, stateBatches: toStateBatches(job.state) };
      this.call<Omit<WriteShareGroupStateRequest, 'correlationId'>, WriteShareGroupStateResponse>(
        shareStatePartition(group, topicId, partition, this.host.numPartitions),
        { type: 'WriteShareGroupState', ...req },
        (cb) => this.host.local.write(req, (r) => cb({ type: 'WriteShareGroupStateResponse', correlationId: -1, ...r })),
        (r) => (retriable(r.error) ? this.retry(n, attempt) : finish()),
      );
    };
    attempt(0);
  }

  /** To the coordinator of the key: this broker's own, or another broker (an unknown leader, a lost request: COORDINATOR_NOT_AVAILABLE). */
  private call<Req extends { type: string }, Resp extends { error: KafkaError }>(statePartition: number, req: Req, local: (cb: (r: Resp) => void) => void, done: (r: Resp) => void): void {
    const leader = this.host.stateLeader(statePartition);
    if (leader < 0) return done({ error: 'COORDINATOR_NOT_AVAILABLE' } as Resp);
    if (leader === this.host.brokerId) return local(done);
    this.host.sendToBroker<Req, Resp>(leader, req, REQUEST_TIMEOUT_MS, (o) => done(o.ok ? o.response : ({ error: 'COORDINATOR_NOT_AVAILABLE' } as Resp)));
  }

  private retry(n: number, again: (n: number) => void): void {
    this.host.setTimer(ms(Math.min(BACKOFF_MS * 2 ** n, BACKOFF_MAX_MS)), () => again(n + 1));
  }
}

export { SHARE_GROUP_STATE_TOPIC };
