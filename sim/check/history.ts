import type { Micros } from '../core/time';
import type { TraceEvent } from '../core/trace';
import { bool, defineKinds, list, nullable, num, obj, optional, str, type KindsOf } from '../core/traceSchema';
import { tpKey } from '../kafka/protocol';

/** The run's own moments and its ground truth, written by the scenario runner for the checkers to read. */
export const RUN_KINDS = defineKinds({
  /**
   * Ground truth at the end of a run, one per partition: the committed log of the healed cluster (from the
   * leader, or the most complete replica when there is none). `offsets[i]` holds `values[i]`.
   */
  'final.partition': {
    topic: str,
    partition: num,
    leader: num,
    leaderEpoch: num,
    replicas: list(num),
    isr: list(num),
    elr: list(num),
    highWatermark: num,
    logEndOffset: num,
    logStartOffset: num,
    compacted: bool,
    offline: bool,
    offsets: list(num),
    keys: list(nullable(str)),
    values: list(nullable(str)),
    /** Replicas whose log holds a different record than this one at some offset below the high watermark. */
    diverged: optional(list(obj({ broker: num, offsets: list(num), values: list(nullable(str)) }))),
  },
  /** The run reached its end (after the quiet period): the last event of a complete trace. */
  'scenario.end': { durationMs: num, quietMs: num },
  /** The quiet period began: faults undone, producers stopped. */
  'scenario.quiet': {},
  /** A caption of a guided scenario, at its moment. */
  caption: { text: str },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof RUN_KINDS> {}
}

/** One send() from the application, with its outcome. */
export interface SendOp {
  readonly value: string;
  readonly producer: string;
  readonly topic: string;
  partition: number;
  readonly key: string | null;
  readonly invokeUs: Micros;
  status: 'ok' | 'fail' | 'unknown';
  /** The offset the producer was told (ok), or -1. */
  offset: number;
  ackUs: Micros;
  broker: number;
  acks: string;
  error: string;
  definite: boolean;
  /** Where a leader first appended it (see History.leaderAppendOf). */
  leaderAppend: LeaderAppend | undefined;
}

/** Where a leader appended a value: its partition, offset, leader epoch, broker and time. */
export interface LeaderAppend {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly epoch: number;
  readonly broker: number;
  readonly t: Micros;
}

export interface FinalPartition {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly compacted: boolean;
  readonly offline: boolean;
  readonly isr: readonly number[];
  readonly elr: readonly number[];
  /** offset -> value in the committed log. */
  readonly byOffset: ReadonlyMap<number, string | null>;
  /** value -> offsets where it appears (more than one: a duplicate). */
  readonly byValue: ReadonlyMap<string, number[]>;
  /** key -> highest offset holding it. */
  readonly lastOffsetOfKey: ReadonlyMap<string, number>;
  readonly offsets: readonly number[];
  /** Replicas that disagree with this log: broker -> the offsets and the values they hold there. */
  readonly diverged: readonly { readonly broker: number; readonly offsets: readonly number[]; readonly values: readonly (string | null)[] }[];
}

export interface PollObservation {
  readonly t: Micros;
  readonly consumer: string;
  readonly group: string | null;
  readonly memberId: string;
  readonly topic: string;
  readonly partition: number;
  readonly offsets: readonly number[];
  readonly values: readonly (string | null)[];
}

/** "topic-partition" (memoised: the checkers look partitions up by it hundreds of thousands of times). */
export function tp(topic: string, partition: number): string {
  return tpKey(topic, partition);
}

/**
 * The run's history folded out of its trace: every send and its outcome, every poll, and the final
 * committed logs. The checkers read this, so a saved trace checks exactly like the run that wrote it.
 */
export class History {
  readonly sends = new Map<string, SendOp>();
  readonly sendsInOrder: SendOp[] = [];
  readonly polls: PollObservation[] = [];
  readonly finals = new Map<string, FinalPartition>();
  /** value -> where a leader first appended it, for values without a SendOp (yet). */
  private readonly orphanAppends = new Map<string, LeaderAppend>();
  /** Acknowledged batches (send.ok events) and the records in them, per producer. */
  readonly batchesOf = new Map<string, { batches: number; records: number }>();
  startUs = 0;
  endUs = 0;
  quietUs = -1;

  /** Folds `events` at once; without them, feed it with `observe` as the run emits its events, then `finish`. */
  constructor(events?: readonly TraceEvent[]) {
    if (events === undefined) return;
    for (const e of events) this.observe(e);
    this.finish();
  }

  /** The time of the last event folded, -1 before any. */
  lastEventUs = -1;

  /** The end of the trace: a run cut short (no scenario.end) ends at its last event. */
  finish(): void {
    if (this.lastEventUs >= 0) this.endUs = Math.max(this.endUs, this.lastEventUs);
  }

  observe(e: TraceEvent): void {
    this.lastEventUs = e.t;
    switch (e.kind) {
      case 'scenario.start':
        this.startUs = e.t;
        break;
      case 'scenario.quiet':
        this.quietUs = e.t;
        break;
      case 'scenario.end':
        this.endUs = e.t;
        break;
      case 'send.invoke': {
        const op: SendOp = {
          value: e.value as string,
          producer: e.node,
          topic: e.topic as string,
          partition: e.partition as number,
          key: e.key as string | null,
          invokeUs: e.t,
          status: 'unknown',
          offset: -1,
          ackUs: -1,
          broker: -1,
          acks: '',
          error: '',
          definite: false,
          leaderAppend: this.orphanAppends.size > 0 ? this.orphanAppends.get(e.value as string) : undefined,
        };
        this.sends.set(op.value, op);
        this.sendsInOrder.push(op);
        break;
      }
      case 'send.ok': {
        const values = e.values as string[];
        const base = e.offset as number;
        const partition = e.partition as number;
        const broker = e.broker as number;
        const acks = e.acks as string;
        for (let i = 0; i < values.length; i++) {
          const op = this.sends.get(values[i]!);
          if (!op) continue;
          op.status = 'ok';
          op.partition = partition;
          op.offset = base >= 0 ? base + i : -1;
          op.ackUs = e.t;
          op.broker = broker;
          op.acks = acks;
        }
        const b = this.batchesOf.get(e.node);
        if (b) {
          b.batches++;
          b.records += values.length;
        } else this.batchesOf.set(e.node, { batches: 1, records: values.length });
        break;
      }
      case 'send.fail': {
        for (const v of e.values as string[]) {
          const op = this.sends.get(v);
          if (!op) continue;
          op.status = 'fail';
          op.error = e.error as string;
          op.definite = e.definite as boolean;
          op.ackUs = e.t;
          if ((e.partition as number) >= 0) op.partition = e.partition as number;
        }
        break;
      }
      case 'replica.append': {
        if (e.role !== 'leader') break;
        const values = (e.values as (string | null)[] | undefined) ?? [];
        const base = e.base as number;
        for (let i = 0; i < values.length; i++) {
          const v = values[i]!;
          if (v === null) continue;
          const op = this.sends.get(v);
          if (op !== undefined ? op.leaderAppend !== undefined : this.orphanAppends.has(v)) continue;
          const la: LeaderAppend = { topic: e.topic as string, partition: e.partition as number, offset: base + i, epoch: e.epoch as number, broker: e.broker as number, t: e.t };
          if (op !== undefined) op.leaderAppend = la;
          else this.orphanAppends.set(v, la);
        }
        break;
      }
      case 'consumer.poll': {
        for (const r of e.records as { topic: string; partition: number; offsets: number[]; values: (string | null)[] }[]) {
          this.polls.push({
            t: e.t,
            consumer: e.node,
            group: e.group as string | null,
            memberId: e.memberId as string,
            topic: r.topic,
            partition: r.partition,
            offsets: r.offsets,
            values: r.values,
          });
        }
        break;
      }
      case 'final.partition': {
        const offsets = e.offsets as number[];
        const values = e.values as (string | null)[];
        const keys = e.keys as (string | null)[];
        const byOffset = new Map<number, string | null>();
        const byValue = new Map<string, number[]>();
        const lastOffsetOfKey = new Map<string, number>();
        for (let i = 0; i < offsets.length; i++) {
          const o = offsets[i]!;
          const v = values[i] ?? null;
          byOffset.set(o, v);
          if (v !== null) {
            const list = byValue.get(v);
            if (list) list.push(o);
            else byValue.set(v, [o]);
          }
          const k = keys[i];
          if (k !== null && k !== undefined) lastOffsetOfKey.set(k, o);
        }
        this.finals.set(tp(e.topic as string, e.partition as number), {
          topic: e.topic as string,
          partition: e.partition as number,
          leader: e.leader as number,
          highWatermark: e.highWatermark as number,
          logStartOffset: e.logStartOffset as number,
          logEndOffset: e.logEndOffset as number,
          compacted: e.compacted as boolean,
          offline: e.offline as boolean,
          isr: e.isr as number[],
          elr: e.elr as number[],
          byOffset,
          byValue,
          lastOffsetOfKey,
          offsets,
          diverged: (e.diverged as FinalPartition['diverged'] | undefined) ?? [],
        });
        break;
      }
    }
  }

  /** Where a leader first appended `value` (kept on its SendOp; values no send.invoke announced are kept aside). */
  leaderAppendOf(value: string): LeaderAppend | undefined {
    return this.sends.get(value)?.leaderAppend ?? this.orphanAppends.get(value);
  }

  /** Topics some consumer reads (only those can have unseen records). */
  consumedTopics(): Set<string> {
    return new Set(this.polls.map((p) => p.topic));
  }
}
