/**
 * The partition leader's side of share groups: it serves ShareFetch and ShareAcknowledge for the partitions this
 * broker leads, keeps one SharePartition per (group, topic-partition), arms a timer at the earliest acquisition
 * lock, parks a ShareFetch that acquired nothing for up to its maxWaitMs (woken by a high-watermark increase or a
 * release), and writes every change through the share-state store so that a new leader carries on.
 * [src: core/src/main/java/kafka/server/share/SharePartitionManager.java `fetchMessages`, `acknowledge`,
 * `releaseSession`; DelayedShareFetch.java; ShareFetchUtils.java `processFetchResponse`]
 */
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { BrokerConfig } from '../config/configs';
import type { KafkaError } from '../errors';
import type { LeaderHint } from '../protocol';
import { batchesBytes } from '../protocol';
import type { RecordBatch } from '../records';
import { shareGroupLimits, initialStartOffset, type ShareGroupLimits } from './shareGroupConfig';
import {
  acquiredRuns,
  type ShareAcknowledgeRequest,
  type ShareAcknowledgeResponse,
  type ShareFetchPartitionResponse,
  type ShareFetchRequest,
  type ShareFetchResponse,
} from './shareProtocol';
import { SharePartition, type StateTransition } from './sharePartition';
import type { ShareStateStore } from './shareStateStore';
import type { ShareGroupDlqManager } from './shareGroupDlqManager';
import { inferredDlqReason } from './dlqRules';
import { DEFAULT_SHARE_VERSION, supportsShareGroupDlq, type ShareVersion } from './shareVersion';

/** What the broker lends the manager. */
export interface SharePartitionHost {
  readonly nodeId: string;
  readonly now: Micros;
  readonly trace: Trace;
  readonly config: BrokerConfig;
  setTimer(delay: Micros, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
  /** The local replica if this broker leads it now: its leader epoch and log. */
  leaderOf(topic: string, partition: number): { readonly leaderEpoch: number; readonly log: LeaderLog } | null;
  /** Who leads the partition per the metadata this broker applied (a hint for the client). */
  leaderHint(topic: string, partition: number): LeaderHint | null;
  groupConfig(groupId: string): Readonly<Record<string, string>>;
  send(to: string, msg: unknown, bytes: number): void;
}

export interface LeaderLog {
  readonly logStartOffset: number;
  readonly highWatermark: number;
  read(startOffset: number, maxBytes: number, maxOffsetExclusive: number, minOneMessage: boolean): { error: KafkaError | null; batches: readonly RecordBatch[] };
  fetchOffsetByTimestamp(timestampMs: number): { offset: number } | null;
}

interface Entry {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly sp: SharePartition;
  timer: TimerId;
  timerAtMs: number;
}

interface ParkedFetch {
  readonly from: string;
  readonly req: ShareFetchRequest;
  readonly ackErrors: Map<string, KafkaError>;
  timer: TimerId;
  done: boolean;
}

const READ_BYTES = 1 << 20;

const key = (group: string, topic: string, partition: number): string => `${group}\u0000${topic}\u0000${partition}`;

export class SharePartitionManager {
  private readonly entries = new Map<string, Entry>();
  private readonly parked: ParkedFetch[] = [];
  private wakeScheduled = false;

  constructor(
    private readonly host: SharePartitionHost,
    private readonly store: ShareStateStore,
    private readonly dlq: ShareGroupDlqManager | null = null,
    private readonly shareVersion: ShareVersion = DEFAULT_SHARE_VERSION,
  ) {}

  private get nowMs(): number {
    return Math.floor(this.host.now / 1000);
  }

  private limitsOf(group: string): ShareGroupLimits & { readonly dlqEnabled: boolean } {
    const got = shareGroupLimits(this.host.config, this.host.groupConfig(group));
    // The validator refuses bad group configs; a bad one altered at run time falls back to the broker defaults.
    const l = typeof got === 'string' ? (shareGroupLimits(this.host.config) as ShareGroupLimits) : got;
    // The DLQ flow needs share.version 2 and a DLQ topic named for the group. [src: SharePartition.java (dlqSupportEnabled); ShareVersion.java `supportsShareGroupDLQ`]
    return { ...l, dlqEnabled: this.dlq !== null && supportsShareGroupDlq(this.shareVersion) && l.dlqTopicName !== '' };
  }

  /** The share-partition of (group, tp) if this broker leads tp: loaded from the store or initialised on first use, or after a leader change. */
  private entry(group: string, topic: string, partition: number): Entry | null {
    const leader = this.host.leaderOf(topic, partition);
    const k = key(group, topic, partition);
    const e = this.entries.get(k);
    if (!leader) {
      if (e) this.drop(k, e);
      return null;
    }
    const limits = this.limitsOf(group);
    if (e && e.leaderEpoch === leader.leaderEpoch) {
      e.sp.limits = limits;
      this.archiveBelowLogStart(e, leader.log);
      return e;
    }
    if (e) this.drop(k, e);
    const persisted = this.store.read(group, topic, partition);
    const log = leader.log;
    const sp = persisted
      ? SharePartition.restore(persisted, limits)
      : new SharePartition(
          initialStartOffset(limits.autoOffsetReset, {
            logStartOffset: log.logStartOffset,
            highWatermark: log.highWatermark,
            nowMs: this.nowMs,
            offsetForTimestamp: (ts) => log.fetchOffsetByTimestamp(ts)?.offset ?? null,
          }),
          limits,
        );
    const fresh: Entry = { group, topic, partition, leaderEpoch: leader.leaderEpoch, sp, timer: NO_TIMER, timerAtMs: Infinity };
    this.entries.set(k, fresh);
    this.host.trace.emit('share.partition.init', this.host.nodeId, {
      group,
      topic,
      partition,
      leaderEpoch: leader.leaderEpoch,
      spso: sp.startOffset,
      speo: sp.endOffset,
      source: persisted ? 'persisted' : 'auto.offset.reset',
    });
    this.store.write(group, topic, partition, sp.snapshot());
    this.archiveBelowLogStart(fresh, log);
    // Records still ARCHIVING when the state was written go to the DLQ again: the write may have been done
    // already, so a record can be dead-lettered twice. [src: SharePartition.java (DLQ rerun on initialization)]
    for (const a of sp.archiving()) this.deadLetter(fresh, a.offset, a.deliveryCount, inferredDlqReason(a.deliveryCount, limits.deliveryCountLimit));
    return fresh;
  }

  private drop(k: string, e: Entry): void {
    this.host.cancelTimer(e.timer);
    this.entries.delete(k);
  }

  /** After each metadata update: forget the share-partitions of partitions this broker no longer leads. */
  onMetadataApplied(): void {
    for (const [k, e] of [...this.entries]) {
      const leader = this.host.leaderOf(e.topic, e.partition);
      if (!leader || leader.leaderEpoch !== e.leaderEpoch) this.drop(k, e);
    }
  }

  private archiveBelowLogStart(e: Entry, log: LeaderLog): void {
    const t = e.sp.archiveBelowLogStart(log.logStartOffset);
    if (t.length > 0) this.changed(e, t);
  }

  // ---- ShareFetch ----

  handleFetch(from: string, req: ShareFetchRequest): void {
    const ackErrors = new Map<string, KafkaError>();
    for (const p of req.partitions) {
      if (p.acknowledgementBatches.length === 0) continue;
      ackErrors.set(key('', p.topic, p.partition), this.acknowledgeOne(req.groupId, req.memberId, p.topic, p.partition, p.acknowledgementBatches));
    }
    // A final fetch (epoch -1) closes the member's share session: what it still holds here is released.
    if (req.shareSessionEpoch === -1) {
      this.releaseMember(req.groupId, req.memberId);
      this.respondFetch(from, req, ackErrors, false);
      return;
    }
    const answered = this.respondFetch(from, req, ackErrors, req.maxWaitMs > 0);
    if (answered) return;
    const parked: ParkedFetch = { from, req, ackErrors, timer: NO_TIMER, done: false };
    parked.timer = this.host.setTimer(ms(req.maxWaitMs), () => {
      if (parked.done) return;
      parked.done = true;
      this.respondFetch(from, req, ackErrors, false);
    });
    this.parked.push(parked);
  }

  /** Acquires for every partition and answers; with `onlyIfAny` it answers only when something was acquired or a partition has an error. */
  private respondFetch(from: string, req: ShareFetchRequest, ackErrors: ReadonlyMap<string, KafkaError>, onlyIfAny: boolean): boolean {
    const out: ShareFetchPartitionResponse[] = [];
    let budget = req.maxRecords;
    let any = false;
    for (const p of req.partitions) {
      const ackError = ackErrors.get(key('', p.topic, p.partition)) ?? 'NONE';
      const e = req.shareSessionEpoch === -1 ? null : this.entry(req.groupId, p.topic, p.partition);
      if (req.shareSessionEpoch === -1) {
        out.push({ topic: p.topic, partition: p.partition, error: 'NONE', acknowledgeError: ackError, currentLeader: null, records: [], acquiredRecords: [] });
        continue;
      }
      if (!e) {
        any = true;
        out.push({ topic: p.topic, partition: p.partition, error: 'NOT_LEADER_OR_FOLLOWER', acknowledgeError: ackError, currentLeader: this.host.leaderHint(p.topic, p.partition), records: [], acquiredRecords: [] });
        continue;
      }
      const log = this.host.leaderOf(p.topic, p.partition)!.log;
      const { acquired, transitions } = budget > 0 ? e.sp.acquire(req.memberId, budget, this.nowMs, (f, max) => this.readOffsets(log, f, max)) : { acquired: [], transitions: [] };
      budget -= acquired.length;
      if (acquired.length > 0) {
        any = true;
        this.host.trace.emit('share.acquire', this.host.nodeId, {
          group: req.groupId,
          topic: p.topic,
          partition: p.partition,
          memberId: req.memberId,
          offsets: acquired.map((a) => a.offset),
          deliveryCounts: acquired.map((a) => a.deliveryCount),
          spso: e.sp.startOffset,
          speo: e.sp.endOffset,
        });
      }
      const gaps = transitions.filter((t) => t.cause === 'gap');
      this.changed(e, gaps);
      if (acquired.length > 0 && gaps.length === 0) this.persist(e);
      if (ackError !== 'NONE') any = true;
      const records = acquired.length === 0 ? [] : this.batchesFor(log, acquired[0]!.offset, acquired[acquired.length - 1]!.offset, new Set(acquired.map((a) => a.offset)));
      out.push({ topic: p.topic, partition: p.partition, error: 'NONE', acknowledgeError: ackError, currentLeader: null, records, acquiredRecords: acquiredRuns(acquired) });
    }
    if (onlyIfAny && !any) return false;
    const resp: ShareFetchResponse = { type: 'ShareFetchResponse', correlationId: req.correlationId, error: 'NONE', partitions: out };
    this.host.send(from, resp, 64 + out.reduce((n, p) => n + batchesBytes(p.records), 0));
    return true;
  }

  /** Offsets of the data records in [from, HW), at most `max`. */
  private readOffsets(log: LeaderLog, from: number, max: number): number[] {
    const out: number[] = [];
    let at = Math.max(from, log.logStartOffset);
    const hw = log.highWatermark;
    while (out.length < max && at < hw) {
      const r = log.read(at, READ_BYTES, hw, true);
      if (r.error || r.batches.length === 0) break;
      for (const b of r.batches) {
        if (!b.isControl) {
          for (let i = 0; i < b.recordCount && out.length < max; i++) {
            const o = b.offsetAt(i);
            if (o >= at && o < hw) out.push(o);
          }
        }
        at = Math.max(at, b.baseOffset + b.lastOffsetDelta + 1);
      }
    }
    return out;
  }

  /** The log's batches that hold any of `offsets` (first..last). */
  private batchesFor(log: LeaderLog, first: number, last: number, offsets: ReadonlySet<number>): RecordBatch[] {
    const out: RecordBatch[] = [];
    let at = first;
    while (at <= last) {
      // Up to the HW, not last + 1: a read leaves out a batch reaching past its bound, and batches hold other records too.
      const r = log.read(at, READ_BYTES, log.highWatermark, true);
      if (r.error || r.batches.length === 0) break;
      for (const b of r.batches) {
        const end = b.baseOffset + b.lastOffsetDelta;
        let holds = false;
        for (let i = 0; i < b.recordCount && !holds; i++) holds = offsets.has(b.offsetAt(i));
        if (holds && out[out.length - 1] !== b) out.push(b);
        at = Math.max(at, end + 1);
      }
    }
    return out;
  }

  // ---- ShareAcknowledge ----

  handleAcknowledge(from: string, req: ShareAcknowledgeRequest): void {
    const partitions = req.partitions.map((p) => {
      const error = this.acknowledgeOne(req.groupId, req.memberId, p.topic, p.partition, p.acknowledgementBatches);
      return { topic: p.topic, partition: p.partition, error, currentLeader: error === 'NOT_LEADER_OR_FOLLOWER' ? this.host.leaderHint(p.topic, p.partition) : null };
    });
    if (req.shareSessionEpoch === -1) this.releaseMember(req.groupId, req.memberId);
    const resp: ShareAcknowledgeResponse = { type: 'ShareAcknowledgeResponse', correlationId: req.correlationId, error: 'NONE', partitions };
    this.host.send(from, resp, 64);
  }

  private acknowledgeOne(group: string, memberId: string, topic: string, partition: number, batches: ShareFetchRequest['partitions'][number]['acknowledgementBatches']): KafkaError {
    const e = this.entry(group, topic, partition);
    if (!e) return 'NOT_LEADER_OR_FOLLOWER';
    const r = e.sp.acknowledge(memberId, batches, this.nowMs);
    if (r.error !== 'NONE') {
      for (const b of batches) {
        const offsets: number[] = [];
        for (let o = b.firstOffset; o <= b.lastOffset; o++) offsets.push(o);
        this.host.trace.emit('share.ack.refused', this.host.nodeId, { group, topic, partition, memberId, type: b.type, offsets, error: r.error });
      }
      return r.error;
    }
    this.changed(e, r.transitions);
    return 'NONE';
  }

  /** The member's share session on this broker closed: release what it holds in every share-partition of the group here. */
  private releaseMember(group: string, memberId: string): void {
    for (const e of this.entries.values()) {
      if (e.group !== group) continue;
      this.changed(e, e.sp.releaseMember(memberId));
    }
  }

  // ---- after a change ----

  /** Trace the transitions (grouped by cause, holder and new state), persist, re-arm the lock timer, wake parked fetches. */
  private changed(e: Entry, transitions: readonly StateTransition[]): void {
    if (transitions.length > 0) {
      const groups = new Map<string, StateTransition[]>();
      for (const t of transitions) {
        const g = `${t.cause}\u0000${t.memberId}\u0000${t.to}`;
        const list = groups.get(g);
        if (list) list.push(t);
        else groups.set(g, [t]);
      }
      for (const list of groups.values()) {
        const t0 = list[0]!;
        this.host.trace.emit('share.transition', this.host.nodeId, {
          group: e.group,
          topic: e.topic,
          partition: e.partition,
          memberId: t0.memberId,
          cause: t0.cause,
          to: t0.to,
          offsets: list.map((t) => t.offset),
          deliveryCounts: list.map((t) => t.deliveryCount),
          spso: e.sp.startOffset,
          speo: e.sp.endOffset,
        });
      }
      this.persist(e);
      if (transitions.some((t) => t.to === 'AVAILABLE')) this.scheduleWake();
      // Phase 1 of the DLQ flow is persisted (ARCHIVING); phase 2 writes the record to the DLQ topic, then archives it.
      for (const t of transitions) if (t.to === 'ARCHIVING') this.deadLetter(e, t.offset, t.deliveryCount, t.cause === 'reject' ? 'rejected' : 'delivery-count-limit');
    }
    this.armLockTimer(e);
  }

  /** Phase 2: the DLQ write, then ARCHIVED (written or not) if this share-partition is still the one that asked. [SharePartition.java; ShareGroupDLQStateManager.java `dlq`] */
  private deadLetter(e: Entry, offset: number, deliveryCount: number, reason: 'rejected' | 'delivery-count-limit'): void {
    if (!this.dlq) return;
    this.dlq.dlq({ group: e.group, topic: e.topic, partition: e.partition, offset, deliveryCount, reason }, (written) => {
      if (this.entries.get(key(e.group, e.topic, e.partition)) !== e) return;
      this.changed(e, e.sp.completeArchiving(offset, written));
    });
  }

  private persist(e: Entry): void {
    this.store.write(e.group, e.topic, e.partition, e.sp.snapshot());
    this.armLockTimer(e);
  }

  private armLockTimer(e: Entry): void {
    const next = e.sp.nextLockExpiryMs();
    if (next === null) {
      this.host.cancelTimer(e.timer);
      e.timer = NO_TIMER;
      e.timerAtMs = Infinity;
      return;
    }
    if (next >= e.timerAtMs && e.timer !== NO_TIMER) return;
    this.host.cancelTimer(e.timer);
    e.timerAtMs = next;
    e.timer = this.host.setTimer(Math.max(0, ms(next) - this.host.now), () => {
      e.timer = NO_TIMER;
      e.timerAtMs = Infinity;
      if (this.entries.get(key(e.group, e.topic, e.partition)) !== e) return;
      this.changed(e, e.sp.expireLocks(this.nowMs));
    });
  }

  /** A partition's HW moved (or records were released): parked fetches try again, once per instant. */
  onHighWatermark(): void {
    if (this.parked.length > 0) this.scheduleWake();
  }

  private scheduleWake(): void {
    if (this.wakeScheduled || this.parked.length === 0) return;
    this.wakeScheduled = true;
    this.host.setTimer(0, () => {
      this.wakeScheduled = false;
      const waiting = this.parked.splice(0);
      for (const p of waiting) {
        if (p.done) continue;
        if (this.respondFetch(p.from, p.req, p.ackErrors, true)) {
          p.done = true;
          this.host.cancelTimer(p.timer);
        } else this.parked.push(p);
      }
    });
  }
}
