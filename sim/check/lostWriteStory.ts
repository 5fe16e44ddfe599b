/**
 * The story of a lost write, told from the trace: who acknowledged it and when, which replicas held it
 * (and whether any fsynced it), which fault removed it, and which election made it unreachable. It reads the
 * history (the record's send, its first leader append, followers' copies, fsyncs) and the few rarer events kept
 * for it here.
 */
import type { Handlers, TraceEventOf } from '../core/trace';
import type { History } from './history/history';
import type { FollowerAppend } from './history/appends';
import type { Flush } from './history/flushes';
import { tpKey } from '../kafka/topicPartition';

const HOST_KINDS = ['fault.start', 'fault.end', 'host.crash', 'host.stop', 'host.power-off', 'disk.power-loss', 'host.restart'] as const;
const PARTITION_KINDS = ['replica.truncate', 'log.recovery', 'log.truncate', 'controller.election'] as const;
type HostEvent = TraceEventOf<(typeof HOST_KINDS)[number]>;
type PartitionEvent = TraceEventOf<(typeof PARTITION_KINDS)[number]>;
type StoryEvent = HostEvent | PartitionEvent;

/** The rarer events a story reads (faults, crashes, truncations, recoveries, elections), in trace order. */
export class StoryEvents {
  readonly events: StoryEvent[] = [];
  readonly handlers: Handlers = Object.fromEntries([...HOST_KINDS, ...PARTITION_KINDS].map((k) => [k, (e: StoryEvent) => this.events.push(e)]));

  /** The first event at or after time `t`. */
  firstFrom(t: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.t < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** One step of the merged stream a story walks: a kept event, a follower's copy, a flush, or the leader's first append. */
type Step =
  | { readonly kind: 'event'; readonly seq: number; readonly t: number; readonly e: StoryEvent }
  | { readonly kind: 'copy'; readonly seq: number; readonly t: number; readonly a: FollowerAppend }
  | { readonly kind: 'flush'; readonly seq: number; readonly t: number; readonly f: Flush }
  | { readonly kind: 'leader'; readonly seq: number; readonly t: number };

const brokerOfNode = (node: string): number => Number(/\d+$/.exec(node)?.[0] ?? -1);

/** A story of at most `max` lines: past it, its first `max - 2` lines and a line counting the rest. */
export function capStory(story: string[], max: number): string[] {
  return story.length > max ? [...story.slice(0, max - 2), `... (${story.length - max + 2} more steps)`] : story;
}

/** The story of acknowledged value `v`, line by line. */
export function lostWriteStory(h: History, kept: StoryEvents, v: number): string[] {
  const s = h.sends;
  const la = h.appends;
  const at = (t: number) => h.at(t);
  const story: string[] = [];
  const hasLa = la.has(v);
  const tp = hasLa ? h.tps.withPartition(s.tp(v), h.tps.partition(la.tp(v))) : s.tp(v);
  const topic = h.tps.topicName(tp);
  const partition = h.tps.partition(tp);
  const offset = s.offset(v) >= 0 ? s.offset(v) : hasLa ? la.offset(v) : -1;
  const epoch = hasLa ? la.epoch(v) : -1;
  const where = tpKey(topic, partition);
  const invokeUs = s.invokeUs(v);
  const ackUs = s.doneUs(v);
  story.push(`${s.producerName(v)} sent ${h.value(v)} at ${at(invokeUs)}.`);
  if (hasLa) story.push(`Broker ${la.broker(v)}, leader in epoch ${epoch}, appended it at offset ${la.offset(v)} at ${at(la.t(v))}.`);
  story.push(s.acks(v) === '0' ? `With acks=0 the producer counted it as sent at ${at(ackUs)} without any answer.` : `Broker ${s.broker(v)} acknowledged it at ${at(ackUs)} (acks=${s.acks(v)}).`);
  if (offset < 0) return story;
  const holders = new Set<number>();
  const relevant = new Set<string>();
  const hostOf = (b: number) => `broker-${b}`;
  const hold = (b: number) => {
    holders.add(b);
    relevant.add(hostOf(b));
  };
  // Nothing before the send can be part of its story.
  const appendT = hasLa ? la.t(v) : invokeUs;
  const from = Math.min(appendT, invokeUs) - 1;
  for (const step of steps(h, kept, from, tp, hasLa ? la.t(v) : -1)) {
    switch (step.kind) {
      case 'leader':
        // The leader of its epoch holds the offset it appended it at.
        if (la.offset(v) === offset) hold(la.broker(v));
        break;
      case 'copy': {
        const a = step.a;
        if (a.base <= offset && offset <= a.last && a.epoch === epoch) {
          hold(a.broker);
          story.push(`Broker ${a.broker} copied it at ${at(a.t)}.`);
        }
        break;
      }
      case 'flush': {
        const f = step.f;
        const node = h.nodes.name(f.node);
        if (f.upTo > offset && holders.has(brokerOfNode(node))) story.push(`${node} fsynced it (durable at ${at(f.completesAt)}).`);
        break;
      }
      case 'event':
        onEvent(step.e);
        break;
    }
  }
  return capStory(story, 40);

  function onEvent(e: StoryEvent): void {
    if (!('topic' in e) || e.topic !== topic || e.partition !== partition) {
      if ('topic' in e) return;
      if (e.t >= appendT - 1) {
        const hosts = 'hosts' in e ? e.hosts : [e.node];
        if (hosts.some((x) => [...holders].map(hostOf).includes(x) || relevant.has(x))) story.push(describeHostEvent(e, at));
      }
      return;
    }
    switch (e.kind) {
      case 'replica.truncate':
        if (e.to <= offset && offset < e.from && holders.has(e.broker)) {
          story.push(`Broker ${e.broker} truncated offsets ${e.to}..${e.from - 1} at ${at(e.t)} (${e.reason}), following leader ${e.leader} in epoch ${e.leaderEpoch}.`);
        }
        break;
      case 'log.recovery':
        if (e.t < ackUs || !holders.has(brokerOfNode(e.node))) break;
        story.push(`${e.node} recovered its log of ${where} at ${at(e.t)} from what survived on disk.`);
        break;
      case 'log.truncate': {
        const rf = e.removedFrom;
        const rt = e.removedTo;
        if (rf !== null && rt !== null && rf <= offset && offset < rt && !story.some((x) => x.includes('truncated offsets') && x.includes(e.node))) {
          story.push(`${e.node} removed offsets ${rf}..${rt - 1} of ${where} at ${at(e.t)}.`);
        }
        break;
      }
      case 'controller.election':
        if (e.t >= ackUs) {
          const src = e.source === null ? 'no replica could lead' : e.source === 'UNCLEAN' ? 'an unclean election (outside the ISR)' : e.source === 'LAST_KNOWN_LEADER' ? 'the last-known-leader rule' : `its ${e.source}`;
          story.push(
            e.leader >= 0
              ? `The controller elected broker ${e.leader} leader of ${where} at ${at(e.t)} from ${src} (${e.reason}); ISR ${JSON.stringify(e.isr)}.`
              : `${where} lost its leader at ${at(e.t)} (${e.reason}).`,
          );
        }
        break;
    }
  }
}

/**
 * From time `from` on, in trace order: the kept events, the followers' copies and the flushes of partition `tp`,
 * and the leader's first append of the record at `leaderT` (before anything else of that instant).
 */
function* steps(h: History, kept: StoryEvents, from: number, tp: number, leaderT: number): Generator<Step> {
  let ei = kept.firstFrom(from);
  let ai = h.followerAppends.firstFrom(from);
  let fi = h.flushes.firstFrom(from);
  let leaderDone = leaderT < from;
  const nextCopy = (): FollowerAppend | undefined => {
    while (ai < h.followerAppends.count) {
      const a = h.followerAppends.get(ai);
      if (a.tp === tp) return a;
      ai++;
    }
    return undefined;
  };
  const nextFlush = (): Flush | undefined => {
    while (fi < h.flushes.count) {
      if (h.flushes.tp(fi) === tp) return h.flushes.get(fi);
      fi++;
    }
    return undefined;
  };
  for (;;) {
    const e = ei < kept.events.length ? kept.events[ei]! : undefined;
    const a = nextCopy();
    const f = nextFlush();
    let best: Step | undefined;
    if (e) best = { kind: 'event', seq: e.seq, t: e.t, e };
    if (a && (!best || a.seq < best.seq)) best = { kind: 'copy', seq: a.seq, t: a.t, a };
    if (f && (!best || f.seq < best.seq)) best = { kind: 'flush', seq: f.seq, t: f.t, f };
    if (!leaderDone && (!best || leaderT <= best.t)) {
      leaderDone = true;
      yield { kind: 'leader', seq: -1, t: leaderT };
      continue;
    }
    if (!best) return;
    if (best.kind === 'event') ei++;
    else if (best.kind === 'copy') ai++;
    else fi++;
    yield best;
  }
}

function describeHostEvent(e: HostEvent, at: (t: number) => string): string {
  const t = at(e.t);
  switch (e.kind) {
    case 'fault.start':
      return `Fault at ${t}: ${e.fault} of ${e.hosts.join(', ')}${e.detail ? ` ${e.detail}` : ''}.`;
    case 'fault.end':
      return `At ${t} the ${e.fault} of ${e.hosts.join(', ')} ended.`;
    case 'host.crash':
      return `${e.node} crashed at ${t} (its page cache survived).`;
    case 'host.stop':
      return `${e.node} was stopped (SIGTERM) at ${t}: a graceful shutdown.`;
    case 'host.power-off':
      return `${e.node} lost power at ${t}: whatever was not on disk is gone.`;
    case 'disk.power-loss': {
      const files = e.files.filter((f) => f.lost > 0 && f.file.includes('/'));
      return `${e.node}'s disk lost ${files.reduce((a, f) => a + f.lost, 0)} unflushed write(s) at ${t}.`;
    }
    case 'host.restart':
      return `${e.node} restarted at ${t}.`;
  }
}
