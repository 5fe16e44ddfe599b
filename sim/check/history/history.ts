import { formatTime } from '../../core/time';
import { fold, type Handlers, type TraceEvent } from '../../core/trace';
import { FollowerAppends, LeaderAppends } from './appends';
import { SmallColumn } from './columns';
import { Finals } from './finals';
import { Flushes } from './flushes';
import { Names, TopicPartitions } from './ids';
import { Positions } from './positions';
import { Reads } from './reads';
import { Sends, Status } from './sends';
import { Transactions } from './transactions';
import { CurrentNumbers, ValueIds } from './values';

/**
 * The run's history folded out of its trace, Jepsen-style: every send and its outcome, every read, where
 * leaders appended each record, what was fsynced, the final committed logs, and which transactions committed. The checks read it (and
 * fold the rarer events themselves), so a saved trace checks exactly like the run that wrote it. Everything
 * is keyed by numbers: values, partitions, nodes, keys.
 */
export class History {
  readonly values = new ValueIds();
  /** The numbers handed along with the event being folded (see CurrentNumbers). */
  readonly numbers = new CurrentNumbers();
  readonly tps = new TopicPartitions();
  /** Producers, consumers, brokers: every node name the history meets. */
  readonly nodes = new Names();
  /** Record keys, numbered like values. */
  readonly keys = new ValueIds();
  /** Per value: its send's outcome and what reads found (sends.ts and reads.ts share the bits). */
  private readonly flags = new SmallColumn(8);
  readonly sends = new Sends(this.flags, this.values, this.numbers, this.tps, this.nodes, this.keys);
  readonly appends = new LeaderAppends(this.values, this.numbers, this.tps, this.sends);
  readonly followerAppends = new FollowerAppends(this.tps);
  readonly flushes = new Flushes(this.tps, this.nodes);
  readonly reads = new Reads(this.flags, this.values, this.numbers, this.tps, this.nodes, this.appends);
  readonly positions = new Positions(this.tps, this.nodes);
  readonly finals = new Finals(this.values, this.numbers, this.tps, this.keys);
  readonly transactions = new Transactions(this.values, this.nodes, this.sends);
  /** Scenario time 0 (scenario.start), the start of the quiet period (-1: none) and the end. */
  startUs = 0;
  quietUs = -1;
  endUs = 0;
  /** The time of the last event folded, -1 before any. */
  lastEventUs = -1;
  /** Where a report over a window of the run (an expectation's "during") begins; 0 for the whole run. */
  windowStartUs = 0;

  /** The history's own handlers, in the order they must run (sends before appends before reads). */
  readonly handlers: readonly Handlers[] = [
    {
      'scenario.start': (e) => {
        this.startUs = e.t;
      },
      'scenario.quiet': (e) => {
        this.quietUs = e.t;
      },
      'scenario.end': (e) => {
        this.endUs = e.t;
      },
    },
    this.sends.handlers,
    this.appends.handlers,
    this.followerAppends.handlers,
    this.flushes.handlers,
    this.reads.handlers,
    this.positions.handlers,
    this.finals.handlers,
    this.transactions.handlers,
  ];

  constructor() {
    this.reads.onFirstRead(() => this.unreadFrom());
  }

  /**
   * Every value sent before this position of the send order was read (a value, not a tombstone) or failed, so
   * a pass looking for acknowledged values nobody read (unseen, lost-write-jepsen) starts here instead of at the
   * first send: moved on as values are first read, so at the end of a run only the last sends remain.
   */
  private readFrom = 0;
  /** Whether `readFrom` counts positions of ids in ascending order (Sends keeps an order list once they are not). */
  private readFromInIdOrder = true;

  /** Where a pass over the acknowledged values not read may start in the send order (Sends.sentAt). */
  unreadFrom(): number {
    const s = this.sends;
    // A send changed after its answer (only hand-written traces): a failure may have turned into an acknowledgement.
    if (s.irregular) return 0;
    if (this.readFromInIdOrder !== s.inIdOrder) {
      this.readFromInIdOrder = s.inIdOrder;
      this.readFrom = 0;
    }
    let i = this.readFrom;
    for (const n = s.orderSpan; i < n; i++) {
      const v = s.sentAt(i);
      if (v >= 0 && !(this.reads.seen(v) && !s.tombstone(v)) && s.status(v) !== Status.Fail) break;
    }
    this.readFrom = i;
    return i;
  }

  /** The end of the trace: a run cut short (no scenario.end) ends at its last event. */
  finish(): void {
    if (this.lastEventUs >= 0) this.endUs = Math.max(this.endUs, this.lastEventUs);
  }

  /**
   * Whether a consumer read the sent record `v`: its value, or for a tombstone (no value to find) a null value
   * at the offset its producer was told. A tombstone without one (acks=0) cannot be told unread: it counts as read.
   */
  wasRead(v: number): boolean {
    if (!this.sends.tombstone(v)) return this.reads.seen(v);
    const o = this.sends.offset(v);
    return o < 0 || this.reads.byPartition.get(this.sends.tp(v))?.tombstoneReads.has(o) === true;
  }

  /** A time as scenario time ("12.345s"). */
  at(t: number): string {
    return formatTime(t - this.startUs);
  }

  /** The value's text. */
  value(v: number): string {
    return this.values.text(v);
  }

  /** "topic-partition". */
  where(tp: number): string {
    return this.tps.key(tp);
  }
}

/** The history of a whole trace (for readers that judge a kept trace, like the explorer's properties). */
export function historyOf(events: readonly TraceEvent[]): History {
  const h = new History();
  fold(events, ...h.handlers);
  h.lastEventUs = events.length > 0 ? events[events.length - 1]!.t : -1;
  h.finish();
  return h;
}
