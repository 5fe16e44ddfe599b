import type { TraceEvent, TraceEventBase } from '../../../sim/core/trace';
import { tpKey } from '../../../sim/kafka/topicPartition';

/**
 * Share-partitions (KIP-932) at a moment, folded from the share.* events of the trace: for each (share group,
 * topic-partition) the start offset SPSO, the end offset SPEO and the state of every record it has taken into its
 * in-flight window (AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVING, ARCHIVED), its delivery count, the member holding
 * its acquisition lock and when that lock runs out. A record keeps its last state after SPSO passes it (the broker
 * forgets it; the view still shows how it ended). A pure fold: events in, plain data out.
 */

export type ShareRecordState = 'AVAILABLE' | 'ACQUIRED' | 'ACKNOWLEDGED' | 'ARCHIVING' | 'ARCHIVED';

export interface ShareCell {
  readonly offset: number;
  state: ShareRecordState;
  deliveryCount: number;
  /** The member id holding the acquisition lock ('' when nobody does). */
  holder: string;
  /** The member that held it last (who released, accepted or let its lock expire). */
  lastHolder: string;
  /** When the acquisition lock runs out (trace time, us), or -1 when the record is not acquired or the duration is unknown. */
  lockDeadline: number;
  /** What last changed it: acquire, accept, release, reject, renew, lock-expired, member-left, log-start, gap, dead-letter. */
  cause: string;
  /** The index of the event that last changed it (-1 when unknown). */
  lastIndex: number;
  /** Written to the dead-letter topic (KIP-1191), if it was. */
  deadLetter: { readonly dlqTopic: string; readonly reason: string } | null;
}

export interface SharePartitionState {
  /** group \u0000 tp */
  readonly id: string;
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  /** "topic-partition" */
  readonly tp: string;
  /** The broker (node) leading it at its last change. */
  leader: string;
  leaderEpoch: number;
  spso: number;
  /** The last offset in the window (SPSO - 1 when it is empty). */
  speo: number;
  /** Every record it has taken in, by offset (those below SPSO as they ended). */
  readonly cells: Map<number, ShareCell>;
  lockExpiries: number;
  archived: number;
  deadLettered: number;
}

export interface ShareState {
  /** By `id`, in the order first seen. */
  readonly partitions: Map<string, SharePartitionState>;
  /** member id -> the share consumer (client) it belongs to. */
  readonly members: Map<string, string>;
}

/** A `share.dead-letter` event (KIP-1191): read by its fields, so the fold stands before the simulator declares the kind. */
export interface DeadLetterFields {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly dlqTopic: string;
  readonly reason: string;
  readonly deliveryCount: number;
}

export const DEAD_LETTER_KIND = 'share.dead-letter';

/** The fields of a share.dead-letter event, or null when it is not one (or a field is missing). */
export function deadLetterFields(e: TraceEventBase): DeadLetterFields | null {
  if (e.kind !== DEAD_LETTER_KIND) return null;
  const f = e as unknown as Record<string, unknown>;
  const str = (k: string) => (typeof f[k] === 'string' ? (f[k] as string) : null);
  const num = (k: string) => (typeof f[k] === 'number' ? (f[k] as number) : null);
  const group = str('group');
  const topic = str('topic');
  const partition = num('partition');
  const offset = num('offset');
  if (group === null || topic === null || partition === null || offset === null) return null;
  return { group, topic, partition, offset, dlqTopic: str('dlqTopic') ?? '', reason: str('reason') ?? '', deliveryCount: num('deliveryCount') ?? -1 };
}

const STATES: ReadonlySet<string> = new Set(['AVAILABLE', 'ACQUIRED', 'ACKNOWLEDGED', 'ARCHIVING', 'ARCHIVED']);

/** Whether a kind is one this fold reads. */
export function isShareKind(kind: string): boolean {
  return kind === 'share.partition.init' || kind === 'share.acquire' || kind === 'share.transition' || kind === 'share.assignment' || kind === DEAD_LETTER_KIND;
}

export function emptyShareState(): ShareState {
  return { partitions: new Map(), members: new Map() };
}

/** The share consumer a member id belongs to (learned from share.assignment), else the id itself. */
export function memberName(s: ShareState, memberId: string): string {
  return s.members.get(memberId) ?? memberId;
}

/**
 * Folds one event into the state. `lockMsOf(group)` is the group's acquisition lock duration
 * (`share.record.lock.duration.ms`, else the broker's `group.share.record.lock.duration.ms`), or null when unknown.
 */
export function applyShareEvent(s: ShareState, e: TraceEvent, lockMsOf: (group: string) => number | null, index = -1): void {
  const part = (group: string, topic: string, partition: number, node: string): SharePartitionState => {
    const tp = tpKey(topic, partition);
    const id = `${group}\u0000${tp}`;
    let p = s.partitions.get(id);
    if (!p) s.partitions.set(id, (p = { id, group, topic, partition, tp, leader: node, leaderEpoch: -1, spso: 0, speo: -1, cells: new Map(), lockExpiries: 0, archived: 0, deadLettered: 0 }));
    if (node.startsWith('broker-')) p.leader = node;
    return p;
  };
  const cell = (p: SharePartitionState, offset: number): ShareCell => {
    let c = p.cells.get(offset);
    if (!c) p.cells.set(offset, (c = { offset, state: 'AVAILABLE', deliveryCount: 0, holder: '', lastHolder: '', lockDeadline: -1, cause: '', lastIndex: -1, deadLetter: null }));
    c.lastIndex = index;
    return c;
  };
  const lockDeadline = (group: string, t: number): number => {
    const ms = lockMsOf(group);
    return ms === null ? -1 : t + ms * 1000;
  };
  switch (e.kind) {
    case 'share.assignment':
      s.members.set(e.memberId, e.node);
      return;
    case 'share.partition.init': {
      const p = part(e.group, e.topic, e.partition, e.node);
      p.leaderEpoch = e.leaderEpoch;
      if (e.source === 'persisted') {
        // The new leader restores the window from the persisted state: what was acquired is available again, with
        // its delivery count (no member holds a lock on a new leader). [SharePartition.java `maybeInitialize`]
        for (const c of p.cells.values()) {
          if (c.offset >= e.spso && c.state === 'ACQUIRED') {
            c.state = 'AVAILABLE';
            c.lastHolder = c.holder;
            c.holder = '';
            c.lockDeadline = -1;
            c.cause = 'leader-change';
            c.lastIndex = index;
          }
        }
      } else {
        // A fresh share-partition at share.auto.offset.reset: nothing in flight.
        for (const o of [...p.cells.keys()]) if (o >= e.spso) p.cells.delete(o);
      }
      p.spso = e.spso;
      p.speo = e.speo;
      return;
    }
    case 'share.acquire': {
      const p = part(e.group, e.topic, e.partition, e.node);
      const deadline = lockDeadline(e.group, e.t);
      e.offsets.forEach((o, k) => {
        const c = cell(p, o);
        c.state = 'ACQUIRED';
        c.deliveryCount = e.deliveryCounts[k] ?? c.deliveryCount + 1;
        c.holder = e.memberId;
        c.lastHolder = e.memberId;
        c.lockDeadline = deadline;
        c.cause = 'acquire';
      });
      p.spso = e.spso;
      p.speo = e.speo;
      return;
    }
    case 'share.transition': {
      const p = part(e.group, e.topic, e.partition, e.node);
      const to = STATES.has(e.to) ? (e.to as ShareRecordState) : null;
      e.offsets.forEach((o, k) => {
        const c = cell(p, o);
        if (to !== null) c.state = to;
        c.deliveryCount = e.deliveryCounts[k] ?? c.deliveryCount;
        if (e.memberId !== '') c.lastHolder = e.memberId;
        c.cause = e.cause;
        if (to === 'ACQUIRED') {
          // RENEW (KIP-1222): the holder keeps it and its lock starts again.
          c.holder = e.memberId;
          c.lockDeadline = lockDeadline(e.group, e.t);
        } else {
          c.holder = '';
          c.lockDeadline = -1;
        }
        if (to === 'ARCHIVED' && e.cause !== 'gap') p.archived++;
      });
      if (e.cause === 'lock-expired') p.lockExpiries += e.offsets.length;
      p.spso = e.spso;
      p.speo = e.speo;
      return;
    }
    default: {
      const d = deadLetterFields(e);
      if (!d) return;
      const p = part(d.group, d.topic, d.partition, e.node);
      const c = cell(p, d.offset);
      c.deadLetter = { dlqTopic: d.dlqTopic, reason: d.reason };
      if (d.deliveryCount >= 0) c.deliveryCount = d.deliveryCount;
      c.cause = 'dead-letter';
      p.deadLettered++;
    }
  }
}

/** The state after the events up to index `upTo` (inclusive) of `events`. */
export function shareStateAt(events: readonly TraceEvent[], upTo: number, lockMsOf: (group: string) => number | null): ShareState {
  const s = emptyShareState();
  for (let i = 0; i <= upTo && i < events.length; i++) applyShareEvent(s, events[i]!, lockMsOf, i);
  return s;
}

/**
 * The state at any event index, for a cursor that mostly moves forward: it folds on from where it was, and from
 * the start when it goes back. Only share.* events are visited (their indices are found once).
 */
export class ShareReplay {
  private readonly indices: Int32Array;
  private state = emptyShareState();
  /** How many of `indices` are folded into `state`. */
  private done = 0;

  constructor(
    private readonly events: readonly TraceEvent[],
    private readonly lockMsOf: (group: string) => number | null,
  ) {
    const list: number[] = [];
    events.forEach((e, i) => {
      if (isShareKind(e.kind)) list.push(i);
    });
    this.indices = Int32Array.from(list);
  }

  /** How many share events the trace has (0: no share group in this run). */
  get count(): number {
    return this.indices.length;
  }

  /** The state after event i (the result is reused by the next call: read it, do not keep it). */
  at(i: number): ShareState {
    let n = this.done;
    if (n > 0 && this.indices[n - 1]! > i) {
      this.state = emptyShareState();
      n = 0;
    }
    while (n < this.indices.length && this.indices[n]! <= i) {
      const k = this.indices[n++]!;
      applyShareEvent(this.state, this.events[k]!, this.lockMsOf, k);
    }
    this.done = n;
    return this.state;
  }
}
