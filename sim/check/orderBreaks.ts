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
  /**
   * Offsets handed out and not finished, in the order first handed out, with the poll that handed each out
   * (`polls[i]` for `open[i]`): a key rarely has more than a few out at once, so two short arrays, and the
   * shared NONE while it has none (most keys, most of the time: no backing store held per key).
   */
  open: number[];
  polls: number[];
  /** The highest offset of the key finished so far. */
  maxFinished: number;
}

/** A key's open offsets and polls while it has none out; never written to. */
const NONE: number[] = [];

/** One group's view of one partition. */
interface Part {
  /** key -> state. */
  readonly keys: Map<string, KeyState>;
  /** Offset handed out and not finished -> its key's state (dropped when finished, so a long run holds only what is out). */
  readonly out: Map<number, KeyState>;
}

interface Tracker {
  /** group -> topic -> partition -> the group's view of the partition (nested, so a poll builds no name to find it). */
  readonly parts: Map<string, Map<string, Part[]>>;
  /** topic -> partition -> every group's view of it (consumer.processed names no group). */
  readonly byTp: Map<string, Part[][]>;
  breaks: number;
  readonly examples: string[];
}

const tracker = (): Tracker => ({ parts: new Map(), byTp: new Map(), breaks: 0, examples: [] });

function find(t: Tracker, group: string, topic: string, partition: number): Part | undefined {
  return t.parts.get(group)?.get(topic)?.[partition];
}

function part(t: Tracker, group: string, topic: string, partition: number): Part {
  let topics = t.parts.get(group);
  if (topics === undefined) t.parts.set(group, (topics = new Map()));
  let partitions = topics.get(topic);
  if (partitions === undefined) topics.set(topic, (partitions = []));
  let p = partitions[partition];
  if (p === undefined) {
    p = partitions[partition] = { keys: new Map(), out: new Map() };
    let views = t.byTp.get(topic);
    if (views === undefined) t.byTp.set(topic, (views = []));
    (views[partition] ??= []).push(p);
  }
  return p;
}

/**
 * One poll's records of a partition. A record is an order break when an earlier record of its key is still out
 * with another poll (they run side by side), or when a later record of its key was already finished (it runs
 * after it). Records of one poll are processed in order by the member that polled them.
 */
function delivered(t: Tracker, group: string, topic: string, partition: number, poll: number, offsets: readonly number[], keys: readonly (string | null)[]): void {
  const p = part(t, group, topic, partition);
  for (let i = 0; i < offsets.length; i++) {
    const key = keys[i];
    if (key === null || key === undefined) continue;
    const o = offsets[i]!;
    let k = p.keys.get(key);
    if (k === undefined) p.keys.set(key, (k = { open: NONE, polls: NONE, maxFinished: -1 }));
    p.out.set(o, k);
    let why: string | null = k.maxFinished > o ? `after offset ${k.maxFinished} of the same key was finished` : null;
    let at = -1;
    for (let j = 0; j < k.open.length; j++) {
      const earlier = k.open[j]!;
      if (earlier === o) at = j;
      if (why === null && earlier < o && k.polls[j] !== poll) why = `while offset ${earlier} of the same key was still out`;
    }
    if (why !== null) {
      t.breaks++;
      if (t.examples.length < 5) t.examples.push(`${group} ${topic}-${partition}: key ${key} offset ${o} was handed out ${why}`);
    }
    if (at >= 0) k.polls[at] = poll;
    else if (k.open === NONE) {
      k.open = [o];
      k.polls = [poll];
    } else {
      k.open.push(o);
      k.polls.push(poll);
    }
  }
}

function finished(p: Part | undefined, offsets: readonly number[]): void {
  if (p === undefined) return;
  for (let i = 0; i < offsets.length; i++) {
    const o = offsets[i]!;
    const k = p.out.get(o);
    const at = k === undefined ? -1 : k.open.indexOf(o);
    if (at < 0) continue;
    if (k!.open.length === 1) k!.open = k!.polls = NONE;
    else {
      k!.open.splice(at, 1);
      k!.polls.splice(at, 1);
    }
    p.out.delete(o);
    if (o > k!.maxFinished) k!.maxFinished = o;
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
          for (const r of e.records) delivered(share, e.group, r.topic, r.partition, e.seq, r.offsets, r.keys);
        },
        // The member is done with a record once it acknowledges it (any type but RENEW); a lock that expires or a session that closes ends it too.
        'share.ack': (e) => {
          if (e.type !== 'RENEW') finished(find(share, e.group, e.topic, e.partition), e.offsets);
        },
        'share.transition': (e) => {
          if (e.cause === 'lock-expired' || e.cause === 'member-left') finished(find(share, e.group, e.topic, e.partition), e.offsets);
        },
        'consumer.poll': (e) => {
          if (e.group === null) return;
          for (const r of e.records) delivered(groups, e.group, r.topic, r.partition, e.seq, r.offsets, r.keys);
        },
        'consumer.processed': (e) => {
          // The event names no group: a consumer is in one group, so each group's view of the partition is closed.
          const parts = groups.byTp.get(e.topic)?.[e.partition];
          if (parts !== undefined) for (const p of parts) finished(p, e.offsets);
        },
      },
      report: (out) => {
        out['share.order-breaks'] = result(share.breaks, share.examples);
        out['group.order-breaks'] = result(groups.breaks, groups.examples);
      },
    };
  },
};
