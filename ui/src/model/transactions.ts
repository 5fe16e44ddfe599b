import type { TraceEvent } from '../../../sim/core/trace';
import { tpKey } from '../../../sim/kafka/topicPartition';

/**
 * Transactions as the partition view draws them: which records of which partitions one transaction wrote,
 * the marker that closed it there and its outcome, and the producers fenced by a newer epoch of their
 * transactional.id. Read from the trace once per run (data appends carry no producer id: a record belongs
 * to the transaction its producer's send.ok names, else to the only transaction open on the partition).
 */
export interface Txn {
  readonly id: number;
  readonly transactionalId: string;
  readonly producerId: number;
  /** The epoch the producer wrote the records with. */
  readonly epoch: number;
  /** The epoch the markers carry (with transaction version 2 the coordinator bumps it at the end). */
  markerEpoch: number | null;
  outcome: 'COMMIT' | 'ABORT' | null;
  /** Time of the first marker (µs), or null while undecided. */
  decidedT: number | null;
  /** Partition → the data offsets the transaction wrote there. */
  readonly records: Map<string, number[]>;
  /** Partition → the marker's offset. */
  readonly markers: Map<string, number>;
}

export interface Fence {
  readonly t: number;
  readonly transactionalId: string;
  readonly producerId: number;
  /** The zombie's epoch. */
  readonly epoch: number;
  /**
   * The newer epoch of the transactional.id that fenced it: the epoch a new instance got from InitProducerId,
   * else the coordinator's current one (-1 when the trace shows none).
   */
  readonly by: number;
  readonly error: string;
  /** The fenced producer's node (its client card), when the producer itself reported it (producer.fenced). */
  readonly node?: string;
}

export interface TxnIndex {
  readonly txns: readonly Txn[];
  /** Partition → offset → transaction (records and markers). */
  readonly at: Map<string, Map<number, Txn>>;
  readonly fences: readonly Fence[];
}

const cache = new WeakMap<readonly TraceEvent[], TxnIndex>();

export function transactionsOf(events: readonly TraceEvent[]): TxnIndex {
  let idx = cache.get(events);
  if (!idx) cache.set(events, (idx = build(events)));
  return idx;
}

function build(events: readonly TraceEvent[]): TxnIndex {
  // Pass 1: who acknowledged which offset, and each producer node's transactional identity.
  const ackBy = new Map<string, string>();
  const producerOf = new Map<string, { producerId: number; transactionalId: string | undefined }>();
  for (const e of events) {
    if (e.kind === 'send.ok') {
      const n = e.values?.length ?? 1;
      for (let k = 0; k < n; k++) ackBy.set(`${tpKey(e.topic, e.partition)}@${e.offset + k}`, e.node);
    } else if (e.kind === 'producer.id') producerOf.set(e.node, { producerId: e.producerId, transactionalId: e.transactionalId ?? undefined });
  }
  const txns: Txn[] = [];
  const at = new Map<string, Map<number, Txn>>();
  const fences: Fence[] = [];
  const current = new Map<string, Txn>();
  const lastEpoch = new Map<string, number>();
  const inits = new Map<string, number[]>();
  /** Partition → producer id → its open transaction there. */
  const open = new Map<string, Map<number, Txn>>();
  const place = (tp: string, o: number, t: Txn) => {
    let m = at.get(tp);
    if (!m) at.set(tp, (m = new Map()));
    m.set(o, t);
  };
  const fence = (t: number, transactionalId: string, producerId: number, epoch: number, error: string, node?: string) => {
    const known = fences.findIndex((f) => f.transactionalId === transactionalId && f.epoch === epoch);
    if (known >= 0) {
      // A leader's or the coordinator's refusal came first: the producer's own report names its card.
      if (node !== undefined && fences[known]!.node === undefined) fences[known] = { ...fences[known]!, node };
      return;
    }
    const init = inits.get(transactionalId)?.find((x) => x > epoch);
    const by = init ?? lastEpoch.get(transactionalId);
    fences.push({ t, transactionalId, producerId, epoch, by: by !== undefined && by > epoch ? by : -1, error, ...(node !== undefined && { node }) });
  };
  for (const e of events) {
    switch (e.kind) {
      case 'producer.id':
        if (!e.transactionalId) break;
        lastEpoch.set(e.transactionalId, Math.max(lastEpoch.get(e.transactionalId) ?? -1, e.producerEpoch));
        if (e.reason === 'InitProducerId') {
          let l = inits.get(e.transactionalId);
          if (!l) inits.set(e.transactionalId, (l = []));
          l.push(e.producerEpoch);
        }
        break;
      case 'txn.state': {
        lastEpoch.set(e.transactionalId, Math.max(lastEpoch.get(e.transactionalId) ?? -1, e.producerEpoch));
        if (e.to !== 'Ongoing') break;
        let t = current.get(e.transactionalId);
        if (!t || t.outcome !== null || e.from !== 'Ongoing') {
          t = { id: txns.length, transactionalId: e.transactionalId, producerId: e.producerId, epoch: e.producerEpoch, markerEpoch: null, outcome: null, decidedT: null, records: new Map(), markers: new Map() };
          txns.push(t);
          current.set(e.transactionalId, t);
        }
        for (const tp of e.partitions) {
          let m = open.get(tp);
          if (!m) open.set(tp, (m = new Map()));
          m.set(e.producerId, t);
        }
        break;
      }
      case 'txn.markers': {
        const t = current.get(e.transactionalId);
        if (t && t.outcome === null && t.producerId === e.producerId) {
          t.outcome = e.result === 'COMMIT' ? 'COMMIT' : 'ABORT';
          t.markerEpoch = e.producerEpoch;
          t.decidedT = e.t;
        }
        break;
      }
      case 'producer.fenced':
        if (e.error === 'PRODUCER_FENCED' || e.error === 'INVALID_PRODUCER_EPOCH') fence(e.t, e.transactionalId, e.producerId, e.producerEpoch, e.error, e.node);
        break;
      case 'txn.refused':
        if (e.error === 'PRODUCER_FENCED' || e.error === 'INVALID_PRODUCER_EPOCH') fence(e.t, e.transactionalId, e.producerId, e.producerEpoch, e.error);
        break;
      case 'replica.append': {
        if (e.role !== 'leader' || e.topic.startsWith('__')) break;
        const tp = tpKey(e.topic, e.partition);
        const m = open.get(tp);
        if (e.control !== undefined) {
          const t = e.producerId === undefined ? undefined : m?.get(e.producerId);
          if (!t) break;
          m!.delete(t.producerId);
          t.markers.set(tp, e.base);
          place(tp, e.base, t);
          if (t.outcome === null) {
            t.outcome = e.control;
            t.markerEpoch = e.producerEpoch ?? t.epoch;
            t.decidedT = e.t;
          }
          break;
        }
        if (!m || m.size === 0) break;
        for (let o = e.base; o <= e.last; o++) {
          const node = ackBy.get(`${tp}@${o}`);
          const who = node === undefined ? undefined : producerOf.get(node);
          const t = who !== undefined ? (who.transactionalId !== undefined ? m.get(who.producerId) : undefined) : m.size === 1 ? [...m.values()][0] : undefined;
          if (!t) continue;
          let list = t.records.get(tp);
          if (!list) t.records.set(tp, (list = []));
          list.push(o);
          place(tp, o, t);
        }
        break;
      }
    }
  }
  return { txns, at, fences };
}

/** The line naming a transaction: id, producer, epoch, outcome (as of `now`), and its fencing if any. */
export function describeTxn(t: Txn, idx: TxnIndex, now: number): string {
  const decided = t.outcome !== null && t.decidedT !== null && t.decidedT <= now;
  const parts = [...new Set([...t.records.keys(), ...t.markers.keys()])].sort();
  const epochs = t.markerEpoch !== null && t.markerEpoch !== t.epoch && decided ? `epoch ${t.epoch} (markers carry ${t.markerEpoch})` : `epoch ${t.epoch}`;
  const n = [...t.records.values()].reduce((s, l) => s + l.length, 0);
  let line = `transaction of transactional.id ${t.transactionalId} · producer id ${t.producerId} · ${epochs} · ${decided ? (t.outcome === 'COMMIT' ? 'committed' : 'aborted') : 'open'} · ${n} record${n === 1 ? '' : 's'} in ${parts.join(', ')}`;
  const f = fenceOf(idx, t.transactionalId, t.epoch, now);
  if (f) line += ` · ${fenceText(f)}`;
  return line;
}

export function fenceText(f: Fence): string {
  return `epoch ${f.epoch} fenced${f.by >= 0 ? ` by epoch ${f.by}` : ''} (${f.error})`;
}

/** The fencing of a transactional.id's epoch that happened by `now`. */
export function fenceOf(idx: TxnIndex, transactionalId: string, epoch: number, now: number): Fence | undefined {
  return idx.fences.find((f) => f.transactionalId === transactionalId && f.epoch === epoch && f.t <= now);
}

/** A producer's fencing on its client card, short enough to keep the card one line (the full text is its title). */
export function fenceOnCard(idx: TxnIndex, node: string, now: number): { readonly text: string; readonly title: string } | undefined {
  const f = idx.fences.find((x) => x.node === node && x.t <= now);
  if (!f) return undefined;
  return { text: f.by >= 0 ? `fenced: epoch ${f.epoch} → ${f.by}` : `fenced: epoch ${f.epoch}`, title: `transactional.id ${f.transactionalId}: ${fenceText(f)}` };
}
