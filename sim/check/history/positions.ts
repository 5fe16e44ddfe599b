import type { Handlers, TraceEventOf } from '../../core/trace';
import type { Names, TopicPartitions } from './ids';

/** A consumer read a partition from `first` on, having read up to `prev` before. */
export type PositionListener = (e: TraceEventOf<'consumer.poll'>, tp: number, first: number, prev: number) => void;

/**
 * Each consumer's position in each partition as its polls show it: the last offset it read. A reassignment, a
 * seek, an offset reset or a detected truncation starts the consumer over (what comes next may go anywhere), and
 * so does its process dying. Listeners see each polled partition's first offset against the position before.
 */
export class Positions {
  /** consumer node id -> partition -> last offset read. */
  private readonly last = new Map<number, Map<number, number>>();
  private readonly listeners: PositionListener[] = [];

  constructor(
    private readonly tps: TopicPartitions,
    private readonly nodes: Names,
  ) {}

  onRead(f: PositionListener): void {
    this.listeners.push(f);
  }

  private readonly forget = (e: { node: string }): void => {
    this.last.delete(this.nodes.id(e.node));
  };

  private readonly died = (e: { processes: readonly string[] }): void => {
    for (const p of e.processes) this.last.delete(this.nodes.id(p));
  };

  readonly handlers: Handlers = {
    'consumer.assignment': this.forget,
    'consumer.seek': this.forget,
    'consumer.offset.reset': this.forget,
    'consumer.truncation': this.forget,
    'host.crash': this.died,
    'host.power-off': this.died,
    'process.exit': (e) => this.died({ processes: [e.process] }),
    'consumer.poll': (e) => {
      const node = this.nodes.id(e.node);
      let mine = this.last.get(node);
      for (const r of e.records) {
        if (r.offsets.length === 0) continue;
        const tp = this.tps.id(r.topic, r.partition);
        if (!mine) this.last.set(node, (mine = new Map()));
        const prev = mine.get(tp);
        if (prev !== undefined) for (const f of this.listeners) f(e, tp, r.offsets[0]!, prev);
        mine.set(tp, r.offsets[r.offsets.length - 1]!);
      }
    },
  };
}
