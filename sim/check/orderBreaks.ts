/**
 * Ordering per key, as a consumer application sees it: an order break is a record handed to the application
 * while an earlier record of the same key, in the same partition, is still out with another poll (not yet
 * processed by a consumer group's member; not yet acknowledged by a share group's member), so the two run side by
 * side, or after a later record of its key was already finished (a released record coming back late). A consumer group processes a partition on
 * one member, in order; a share group spreads one partition over several members and redelivers released
 * records after later ones, so `share.order-breaks` appear where `group.order-breaks` stay 0 on the same data.
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

interface KeyState {
  /** Offsets handed out and not finished, with the poll that handed them out. */
  readonly open: Map<number, number>;
  /** The highest offset of the key finished so far. */
  maxFinished: number;
}

interface Tracker {
  /** group/tp -> key -> state. */
  readonly keys: Map<string, Map<string, KeyState>>;
  /** group/tp -> offset -> key. */
  readonly keyOf: Map<string, Map<number, string>>;
  breaks: number;
  readonly examples: string[];
}

const tracker = (): Tracker => ({ keys: new Map(), keyOf: new Map(), breaks: 0, examples: [] });

/**
 * One poll's records of a partition. A record is an order break when an earlier record of its key is still out
 * with another poll (they run side by side), or when a later record of its key was already finished (it runs
 * after it). Records of one poll are processed in order by the member that polled them.
 */
function delivered(t: Tracker, where: string, poll: number, offsets: readonly number[], keys: readonly (string | null)[]): void {
  let byKey = t.keys.get(where);
  if (!byKey) t.keys.set(where, (byKey = new Map()));
  let keyOf = t.keyOf.get(where);
  if (!keyOf) t.keyOf.set(where, (keyOf = new Map()));
  offsets.forEach((o, i) => {
    const key = keys[i];
    if (key === null || key === undefined) return;
    keyOf.set(o, key);
    let k = byKey.get(key);
    if (!k) byKey.set(key, (k = { open: new Map(), maxFinished: -1 }));
    let why: string | null = k.maxFinished > o ? `after offset ${k.maxFinished} of the same key was finished` : null;
    if (why === null) {
      for (const [earlier, by] of k.open) {
        if (earlier < o && by !== poll) {
          why = `while offset ${earlier} of the same key was still out`;
          break;
        }
      }
    }
    if (why !== null) {
      t.breaks++;
      if (t.examples.length < 5) t.examples.push(`${where}: key ${key} offset ${o} was handed out ${why}`);
    }
    k.open.set(o, poll);
  });
}

function finished(t: Tracker, where: string, offsets: readonly number[]): void {
  const keyOf = t.keyOf.get(where);
  const byKey = t.keys.get(where);
  if (!keyOf || !byKey) return;
  for (const o of offsets) {
    const key = keyOf.get(o);
    const k = key === undefined ? undefined : byKey.get(key);
    if (!k || !k.open.delete(o)) continue;
    if (o > k.maxFinished) k.maxFinished = o;
  }
}

export const orderBreaks: CheckDefinition = {
  id: 'orderBreaks',
  source: FIGURE,
  make: () => {
    const share = tracker();
    const groups = tracker();
    return {
      handlers: {
        'share.poll': (e) => {
          for (const r of e.records) delivered(share, `${e.group} ${r.topic}-${r.partition}`, e.seq, r.offsets, r.keys);
        },
        // The member is done with a record once it acknowledges it (any type but RENEW); a lock that expires or a session that closes ends it too.
        'share.ack': (e) => {
          if (e.type !== 'RENEW') finished(share, `${e.group} ${e.topic}-${e.partition}`, e.offsets);
        },
        'share.transition': (e) => {
          if (e.cause === 'lock-expired' || e.cause === 'member-left') finished(share, `${e.group} ${e.topic}-${e.partition}`, e.offsets);
        },
        'consumer.poll': (e) => {
          if (e.group === null) return;
          for (const r of e.records) delivered(groups, `${e.group} ${r.topic}-${r.partition}`, e.seq, r.offsets, r.keys);
        },
        'consumer.processed': (e) => {
          // The event names no group: a consumer is in one group, so each group's view of the partition is closed.
          for (const where of groups.keys.keys()) if (where.endsWith(` ${e.topic}-${e.partition}`)) finished(groups, where, e.offsets);
        },
      },
      report: (out) => {
        out['share.order-breaks'] = result(share.breaks, share.examples);
        out['group.order-breaks'] = result(groups.breaks, groups.examples);
      },
    };
  },
};
