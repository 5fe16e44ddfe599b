/**
 * The operator's describe tools at any moment of a saved run, folded from the trace up to that moment:
 * - `kafka-topics --describe`: each partition as the controller committed it (leader, replicas, ISR, ELR,
 *   replicas being added or removed), with the leader's high watermark and log end offset;
 * - `kafka-consumer-groups --describe`: each group's committed offsets, the high watermark a consumer can
 *   read up to (LOG-END-OFFSET, as the tool shows it), the lag, and the member that owns the partition;
 * - `kafka-metadata-quorum describe --status`: the KRaft leader, its epoch and high watermark, the voters and
 *   observers, and the followers' lag as the last metrics sample saw it.
 * [tools/.../TopicCommand.java `describeTopic`; ConsumerGroupCommand.java `describeGroups`;
 *  MetadataQuorumCommand.java `handleDescribeStatus`]
 */
import type { TraceEvent } from '../core/trace';
import type { GroupPartitionDescription, PartitionDescription } from './describe';
import { add, comparePartitionNames, groupRowsOf } from './describe';

/** A partition as `kafka-topics --describe` prints it at a moment, and what a reassignment is doing. */
export interface PartitionAt extends PartitionDescription {
  readonly leaderEpoch: number;
  readonly addingReplicas: readonly number[];
  readonly removingReplicas: readonly number[];
}

/** `kafka-metadata-quorum describe --status` at a moment. */
export interface QuorumStatus {
  /** null: no leader at that moment (an election under way). */
  readonly leaderId: string | null;
  readonly leaderEpoch: number;
  /** The leader's high watermark (-1 before the first commit). */
  readonly highWatermark: number;
  /** The leader's log end offset minus the furthest-behind voter's, from the last sample (null: none yet). */
  readonly maxFollowerLag: number | null;
  /** How long the furthest-behind voter had not been caught up, at the last sample (null: none yet). */
  readonly maxFollowerLagTimeMs: number | null;
  /** The sample those two come from, scenario µs. */
  readonly lagSampledAtUs: number | null;
  readonly voters: readonly string[];
  readonly observers: readonly string[];
}

export interface DescribeAt {
  /** The moment, scenario µs (events up to and including it are folded). */
  readonly atUs: number;
  readonly topics: readonly PartitionAt[];
  readonly groups: readonly GroupPartitionDescription[];
  readonly quorum: QuorumStatus;
}

interface Part {
  topic: string;
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  elr: number[];
  adding: number[];
  removing: number[];
  /** broker -> [high watermark, log end offset, log start offset] of its replica. */
  readonly logs: Map<number, [number, number, number]>;
}

/** The moment's tables; `atUs` in scenario time (from `scenario.start`, or the trace's start without one). */
export function describeAt(events: readonly TraceEvent[], atUs: number): DescribeAt {
  return new DescribeFold(events).at(atUs);
}

/**
 * The fold behind describeAt, kept between moments: asking for a later moment folds on from the last one, an
 * earlier one starts again (the CLI asks once; the UI and tests walk forward).
 */
export class DescribeFold {
  private readonly startUs: number;
  private next = 0;
  private parts = new Map<string, Part>();
  private committed = new Map<string, number>();
  private owner = new Map<string, string>();
  private groupParts = new Map<string, Set<string>>();
  private raft = new Map<string, { role: string; state: string; epoch: number; leader: string | null }>();
  private raftHw = -1;
  private lastQuorumSample: { t: number; leo: Map<string, number> } | null = null;
  /** voter -> when it was last caught up with the leader, as the samples saw it. */
  private caughtUpAt = new Map<string, number>();

  constructor(private readonly events: readonly TraceEvent[]) {
    this.startUs = events.find((e) => e.kind === 'scenario.start')?.t ?? 0;
  }

  private reset(): void {
    this.next = 0;
    this.parts = new Map();
    this.committed = new Map();
    this.owner = new Map();
    this.groupParts = new Map();
    this.raft = new Map();
    this.raftHw = -1;
    this.lastQuorumSample = null;
    this.caughtUpAt = new Map();
  }

  at(atUs: number): DescribeAt {
    const until = this.startUs + atUs;
    if (this.next > 0 && this.events[this.next - 1]!.t > until) this.reset();
    const { events, parts, committed, owner, groupParts, raft, caughtUpAt, startUs } = this;
    const log = (p: Part, b: number) => {
      let l = p.logs.get(b);
      if (!l) p.logs.set(b, (l = [0, 0, 0]));
      return l;
    };
    const key = (topic: unknown, partition: unknown) => `${String(topic)}-${String(partition)}`;
    const broker = (node: string) => (/^broker-(\d+)$/.exec(node) ? Number(node.slice(7)) : -1);
    for (; this.next < events.length; this.next++) {
      const e = events[this.next]!;
      if (e.t > until) break;
      switch (e.kind) {
        case 'controller.partition': {
          const k = key(e.topic, e.partition);
          let p = parts.get(k);
          if (!p) parts.set(k, (p = { topic: e.topic, partition: e.partition, leader: -1, leaderEpoch: -1, replicas: [], isr: [], elr: [], adding: [], removing: [], logs: new Map() }));
          p.leader = e.leader;
          p.leaderEpoch = e.leaderEpoch;
          p.replicas = [...e.replicas];
          p.isr = [...e.isr];
          p.elr = [...e.elr];
          break;
        }
        case 'controller.reassignment': {
          const p = parts.get(key(e.topic, e.partition));
          if (p) {
            p.adding = [...e.addingReplicas];
            p.removing = [...e.removingReplicas];
          }
          break;
        }
        case 'controller.topic-deleted':
          for (const [k, p] of parts) if (p.topic === e.topic) parts.delete(k);
          break;
        case 'replica.append': {
          const p = parts.get(key(e.topic, e.partition));
          if (p) log(p, e.broker)[1] = e.last + 1;
          break;
        }
        case 'replica.hw':
        case 'replica.role': {
          const p = parts.get(key(e.topic, e.partition));
          if (p) {
            const l = log(p, e.broker);
            l[0] = e.hw;
            l[1] = e.leo;
          }
          break;
        }
        case 'replica.truncate': {
          const p = parts.get(key(e.topic, e.partition));
          if (p) log(p, e.broker)[1] = e.to;
          break;
        }
        case 'log.truncate': {
          const p = parts.get(key(e.topic, e.partition));
          const b = broker(e.node);
          if (p && b >= 0) {
            const l = log(p, b);
            l[0] = e.highWatermark;
            l[1] = e.logEndOffset;
            if (e.method === 'truncateFullyAndStartAt') l[2] = e.toOffset;
          }
          break;
        }
        case 'log.recovery': {
          const p = parts.get(key(e.topic, e.partition));
          const b = broker(e.node);
          if (p && b >= 0) p.logs.set(b, [e.highWatermark, e.logEndOffset, e.logStartOffset]);
          break;
        }
        case 'log.retention': {
          const p = parts.get(key(e.topic, e.partition));
          const b = broker(e.node);
          if (p && b >= 0) log(p, b)[2] = e.logStartOffset;
          break;
        }
        case 'consumer.commit':
          if (e.ok && e.group) {
            for (const o of e.offsets) {
              committed.set(`${e.group}\u0000${key(o.topic, o.partition)}`, o.offset);
              add(groupParts, e.group, key(o.topic, o.partition));
            }
          }
          break;
        case 'group.offset.txn':
        case 'group.offset.commit':
          // Transactional offsets count once their COMMIT marker made them the group's.
          if (e.kind === 'group.offset.txn' ? e.result === 'commit' : e.error === 'NONE') {
            for (const o of e.offsets) {
              committed.set(`${e.group}\u0000${key(o.topic, o.partition)}`, o.offset);
              add(groupParts, e.group, key(o.topic, o.partition));
            }
          }
          break;
        case 'consumer.assignment':
          if (e.group) {
            for (const [k, who] of owner) if (who === e.node && k.startsWith(`${e.group}\u0000`)) owner.delete(k);
            for (const p of e.owned) {
              owner.set(`${e.group}\u0000${p}`, e.node);
              add(groupParts, e.group, p);
            }
          }
          break;
        case 'consumer.leave':
        case 'consumer.close':
        case 'host.crash':
        case 'host.power-off':
          // The member's own view, as the UI shows it: a consumer that leaves or dies owns nothing.
          for (const [k, who] of owner) if (who === e.node) owner.delete(k);
          break;
        case 'raft.state-change':
          raft.set(e.node, { role: e.role, state: e.state, epoch: e.epoch, leader: e.leader });
          break;
        case 'raft.high-watermark':
          if (raft.get(e.node)?.state === 'Leader') this.raftHw = e.highWatermark;
          break;
        case 'metrics.sample': {
          const leo = e.values['log-end-offset'];
          if (e.role !== 'controller' || leo === undefined) break;
          if (!this.lastQuorumSample || this.lastQuorumSample.t !== e.t) this.lastQuorumSample = { t: e.t, leo: new Map() };
          this.lastQuorumSample.leo.set(e.node, leo);
          break;
        }
      }
      if (e.kind === 'metrics.sample') noteCaughtUp(this.lastQuorumSample, raft, caughtUpAt);
    }
    const raftHw = this.raftHw;
    const lastQuorumSample = this.lastQuorumSample;

    const topics: PartitionAt[] = [...parts.values()]
      .sort((a, b) => comparePartitionNames(`${a.topic}-${a.partition}`, `${b.topic}-${b.partition}`))
      .map((p) => {
        const l = p.leader >= 0 ? (p.logs.get(p.leader) ?? [0, 0, 0]) : [-1, -1, -1];
        return {
          topic: p.topic,
          partition: p.partition,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          replicas: p.replicas,
          isr: p.isr,
          elr: p.elr,
          addingReplicas: p.adding,
          removingReplicas: p.removing,
          highWatermark: l[0]!,
          logEndOffset: l[1]!,
          logStartOffset: l[2]!,
          offline: p.leader < 0,
        };
      });

    const hwOf = new Map(topics.map((p) => [`${p.topic}-${p.partition}`, p.highWatermark]));
    const groups = groupRowsOf(groupParts, committed, owner, hwOf);

    const leader = [...raft].find(([, r]) => r.state === 'Leader');
    const newest = [...raft.values()].reduce((m, r) => Math.max(m, r.epoch), -1);
    // Lag as DescribeQuorum reports it: the leader's log end offset minus each voter's; the time since it was caught up.
    let maxFollowerLag: number | null = null;
    let maxFollowerLagTimeMs: number | null = null;
    if (lastQuorumSample && leader) {
      const leaderLeo = lastQuorumSample.leo.get(leader[0]);
      if (leaderLeo !== undefined) {
        maxFollowerLag = 0;
        maxFollowerLagTimeMs = 0;
        for (const [v, r] of raft) {
          if (r.role !== 'voter' || v === leader[0]) continue;
          const leo = lastQuorumSample.leo.get(v);
          maxFollowerLag = Math.max(maxFollowerLag, leo === undefined ? leaderLeo : leaderLeo - leo);
          const since = caughtUpAt.get(v);
          maxFollowerLagTimeMs = Math.max(maxFollowerLagTimeMs, since === undefined ? (lastQuorumSample.t - startUs) / 1000 : (lastQuorumSample.t - since) / 1000);
        }
      }
    }
    const quorum: QuorumStatus = {
      leaderId: leader?.[0] ?? null,
      leaderEpoch: leader?.[1].epoch ?? newest,
      highWatermark: raftHw,
      maxFollowerLag,
      maxFollowerLagTimeMs,
      lagSampledAtUs: lastQuorumSample ? lastQuorumSample.t - startUs : null,
      voters: [...raft].filter(([, r]) => r.role === 'voter').map(([n]) => n).sort(natural),
      observers: [...raft].filter(([, r]) => r.role === 'observer').map(([n]) => n).sort(natural),
    };
    return { atUs, topics, groups, quorum };
  }
}

/** After each controller sample: a voter whose log end offset reaches the leader's is caught up at that moment. */
function noteCaughtUp(
  sample: { t: number; leo: Map<string, number> } | null,
  raft: ReadonlyMap<string, { role: string; state: string }>,
  caughtUpAt: Map<string, number>,
): void {
  if (!sample) return;
  const leader = [...raft].find(([, r]) => r.state === 'Leader')?.[0];
  const leaderLeo = leader === undefined ? undefined : sample.leo.get(leader);
  if (leaderLeo === undefined) return;
  for (const [v, leo] of sample.leo) if (leo >= leaderLeo) caughtUpAt.set(v, sample.t);
}

function natural(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
