import { NO_TIMER, type TimerId } from '../../../sim/core/scheduler';
import { ms, type Micros } from '../../../sim/core/time';
import { ofKind, type TraceEvent, type TraceEventOf, type TraceKind } from '../../../sim/core/trace';
import { KafkaRaftClient } from '../../../sim/kafka/raft/kafkaRaftClient';
import type { RaftBatch } from '../../../sim/kafka/raft/messages';
import { quorumConfig, type QuorumConfig, type QuorumTimingKey } from '../../../sim/kafka/raft/quorumConfig';
import { processRaftIo, type RaftIo } from '../../../sim/kafka/raft/raftIo';
import type { DiskConfig } from '../../../sim/world/disk';
import type { ProcessContext } from '../../../sim/world/host';
import type { NetworkConfig } from '../../../sim/world/network';
import { Process } from '../../../sim/world/process';
import { World } from '../../../sim/world/world';

/**
 * A test cluster: one host per node, each running a process that embeds the raft client the way a controller
 * (voter) or broker (observer) will. The recorder below is the tests' omniscient view of what each incarnation
 * of each node was told was committed; nothing in the simulation reads it.
 */

export interface CommittedEntry {
  readonly offset: number;
  readonly epoch: number;
  readonly record: string;
}

export interface Incarnation {
  readonly entries: CommittedEntry[];
  /** Every committedOffset the listener reported, in order. */
  readonly committedOffsets: number[];
  readonly becameLeader: { epoch: number; epochStartOffset: number; at: Micros }[];
}

export class CommitRecorder {
  readonly byNode = new Map<string, Incarnation[]>();

  startIncarnation(node: string): void {
    let list = this.byNode.get(node);
    if (!list) this.byNode.set(node, (list = []));
    list.push({ entries: [], committedOffsets: [], becameLeader: [] });
  }

  current(node: string): Incarnation {
    const list = this.byNode.get(node);
    const inc = list?.[list.length - 1];
    if (!inc) throw new Error(`no incarnation of ${node}`);
    return inc;
  }

  commit(node: string, batches: readonly RaftBatch<string>[], committedOffset: number): void {
    const inc = this.current(node);
    for (const b of batches) b.records.forEach((record, i) => inc.entries.push({ offset: b.baseOffset + i, epoch: b.epoch, record }));
    inc.committedOffsets.push(committedOffset);
  }

  /** Every entry any incarnation of any node was told is committed. */
  allEntries(): CommittedEntry[] {
    const out: CommittedEntry[] = [];
    for (const list of this.byNode.values()) for (const inc of list) out.push(...inc.entries);
    return out;
  }
}

export interface NodeOptions {
  readonly quorum: QuorumConfig;
  /** The leader appends a record this often once it may act (null: never). */
  readonly appendEveryMs: number | null;
  /** The leader appends a no-op when it appended nothing for this long (metadata.max.idle.interval.ms). */
  readonly noopEveryMs: number | null;
  /** Lets a test watch or alter what the client does through its process. */
  readonly ioHook?: (node: string, io: RaftIo) => RaftIo;
}

export class RaftTestNode extends Process {
  readonly raft: KafkaRaftClient<string>;
  private appendTimer: TimerId = NO_TIMER;
  private seq = 0;
  private leaderEpoch = -1;

  constructor(
    id: string,
    ctx: ProcessContext,
    private readonly opts: NodeOptions,
    private readonly recorder: CommitRecorder,
  ) {
    super(id, ctx);
    const io = processRaftIo(this);
    this.raft = new KafkaRaftClient<string>(
      opts.ioHook ? opts.ioHook(id, io) : io,
      { quorum: opts.quorum, recordBytes: (r) => 16 + r.length },
      {
        onCommit: (batches, committedOffset) => recorder.commit(id, batches, committedOffset),
        onLeaderChange: () => {},
        onBecomeLeader: (epoch, epochStartOffset) => {
          recorder.current(id).becameLeader.push({ epoch, epochStartOffset, at: this.now });
          this.leaderEpoch = epoch;
          this.scheduleAppend();
        },
        onResign: () => {
          this.leaderEpoch = -1;
          this.cancelTimer(this.appendTimer);
        },
        // As Kafka's fatal fault handler: the process stops.
        onFatalError: (reason) => this.exit(`raft: ${reason}`),
      },
    );
  }

  private scheduleAppend(): void {
    const every = this.opts.appendEveryMs ?? this.opts.noopEveryMs;
    if (every === null) return;
    this.appendTimer = this.setTimer(ms(every), () => {
      if (this.leaderEpoch < 0) return;
      const record = this.opts.appendEveryMs !== null ? `${this.id}#${this.incarnation}:${this.seq++}` : 'noop';
      this.raft.append([record], this.leaderEpoch);
      this.scheduleAppend();
    });
  }

  /** Appends now (tests drive writes through the node, as a controller would). */
  appendNow(records: string[]): number | null {
    return this.raft.append(records);
  }

  override onStart(): void {
    this.recorder.startIncarnation(this.id);
    this.raft.start();
  }

  onMessage(from: string, msg: unknown): void {
    if (!this.raft.handleMessage(from, msg)) throw new Error(`${this.id}: unexpected message ${JSON.stringify(msg)}`);
  }

  override onDisconnect(peer: string): void {
    this.raft.onDisconnect(peer);
  }
}

export interface ClusterOptions {
  readonly seed: number | string;
  readonly voters: number;
  readonly observers?: number;
  readonly appendEveryMs?: number | null;
  readonly noopEveryMs?: number | null;
  readonly quorum?: Partial<Record<QuorumTimingKey, number>>;
  readonly disk?: Partial<DiskConfig>;
  readonly network?: Partial<NetworkConfig>;
  readonly startupDelayMs?: number;
  readonly ioHook?: (node: string, io: RaftIo) => RaftIo;
}

export class RaftCluster {
  readonly world: World;
  readonly voterIds: string[];
  readonly observerIds: string[];
  readonly recorder = new CommitRecorder();

  constructor(opts: ClusterOptions) {
    this.world = new World({ seed: opts.seed, scenario: 'raft-test', ...(opts.disk ? { disk: opts.disk } : {}), ...(opts.network ? { network: opts.network } : {}) });
    this.voterIds = Array.from({ length: opts.voters }, (_, i) => `controller-${i + 1}`);
    this.observerIds = Array.from({ length: opts.observers ?? 0 }, (_, i) => `broker-${i + 1}`);
    const quorum = quorumConfig(this.voterIds, opts.quorum ?? {});
    const nodeOpts: NodeOptions = {
      quorum,
      appendEveryMs: opts.appendEveryMs ?? null,
      noopEveryMs: opts.noopEveryMs ?? null,
      ...(opts.ioHook ? { ioHook: opts.ioHook } : {}),
    };
    for (const id of [...this.voterIds, ...this.observerIds]) {
      const host = this.world.addHost({ id, startupDelayMs: opts.startupDelayMs ?? 200 });
      host.addProcess({ id, create: (ctx) => new RaftTestNode(id, ctx, nodeOpts, this.recorder) });
    }
    this.world.start();
  }

  get allIds(): string[] {
    return [...this.voterIds, ...this.observerIds];
  }

  node(id: string): RaftTestNode | undefined {
    return this.world.host(id).process(id) as RaftTestNode | undefined;
  }

  client(id: string): KafkaRaftClient<string> | undefined {
    return this.node(id)?.raft;
  }

  runFor(msDuration: number): void {
    this.world.runUntil(this.world.now + ms(msDuration));
  }

  /** Live nodes that are Leader now. */
  leaders(): string[] {
    return this.voterIds.filter((id) => this.client(id)?.isLeader === true);
  }

  /** Runs until exactly one live leader exists whose first entry committed (or the time runs out). */
  runUntilLeader(maxMs: number, stepMs = 10): string | null {
    const end = this.world.now + ms(maxMs);
    while (this.world.now < end) {
      this.runFor(stepMs);
      const ls = this.leaders();
      if (ls.length === 1) {
        const c = this.client(ls[0]!)!;
        if (c.highWatermark !== null) return ls[0]!;
      }
    }
    return null;
  }

  events(): TraceEvent[];
  events<K extends TraceKind>(kind: K): TraceEventOf<K>[];
  events(kind?: TraceKind): TraceEvent[] {
    const all = this.world.memory?.events ?? [];
    return kind === undefined ? all : ofKind(all, kind);
  }
}

// ---- invariants the tests and properties check ----

/** (epoch -> the nodes that became Leader in it), from the trace. */
export function leadersByEpoch(events: readonly TraceEvent[]): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const e of events) {
    if (e.kind !== 'raft.state-change' || e.state !== 'Leader') continue;
    const epoch = e.epoch as number;
    let s = out.get(epoch);
    if (!s) out.set(epoch, (s = new Set()));
    s.add(e.node);
  }
  return out;
}

/** Violations of "at most one leader per epoch". */
export function twoLeaderEpochs(events: readonly TraceEvent[]): string[] {
  const out: string[] = [];
  for (const [epoch, nodes] of leadersByEpoch(events)) if (nodes.size > 1) out.push(`epoch ${epoch}: ${[...nodes].sort().join(', ')}`);
  return out;
}

/** Violations of "a node's epoch never goes back" (state changes and recoveries, across restarts). */
export function epochRegressions(events: readonly TraceEvent[]): string[] {
  const last = new Map<string, number>();
  const out: string[] = [];
  for (const e of events) {
    if (e.kind !== 'raft.state-change' && e.kind !== 'raft.recover') continue;
    const epoch = e.epoch as number;
    const prev = last.get(e.node);
    if (prev !== undefined && epoch < prev) out.push(`${e.node} at ${e.t}us: epoch ${prev} -> ${epoch} (${e.kind})`);
    last.set(e.node, Math.max(prev ?? -1, epoch));
  }
  return out;
}

/**
 * Violations of "committed entries are one sequence": every incarnation of every node saw increasing offsets,
 * and all agree on the (epoch, record) at each offset.
 */
export function commitDisagreements(recorder: CommitRecorder): string[] {
  const out: string[] = [];
  const global = new Map<number, string>();
  for (const [node, list] of recorder.byNode) {
    list.forEach((inc, k) => {
      let prev = -1;
      for (const e of inc.entries) {
        if (e.offset <= prev) out.push(`${node}#${k}: offset ${e.offset} after ${prev}`);
        prev = e.offset;
        const v = `${e.epoch}|${e.record}`;
        const g = global.get(e.offset);
        if (g === undefined) global.set(e.offset, v);
        else if (g !== v) out.push(`${node}#${k}: offset ${e.offset} is ${v}, elsewhere ${g}`);
      }
      for (let i = 1; i < inc.committedOffsets.length; i++) {
        if (inc.committedOffsets[i]! < inc.committedOffsets[i - 1]!) out.push(`${node}#${k}: committed offset went back`);
      }
    });
  }
  return out;
}

/** The data records of a log by offset. */
export function logEntries(batches: readonly RaftBatch<string>[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const b of batches) b.records.forEach((r, i) => out.set(b.baseOffset + i, `${b.epoch}|${r}`));
  return out;
}

/** Committed entries (ever reported anywhere, below `below` if given) missing from or changed in `batches`. */
export function lostCommitted(recorder: CommitRecorder, batches: readonly RaftBatch<string>[], below = Number.POSITIVE_INFINITY): string[] {
  const log = logEntries(batches);
  const out: string[] = [];
  const seen = new Set<number>();
  for (const e of recorder.allEntries()) {
    if (seen.has(e.offset) || e.offset >= below) continue;
    seen.add(e.offset);
    const v = log.get(e.offset);
    if (v !== `${e.epoch}|${e.record}`) out.push(`offset ${e.offset}: committed ${e.epoch}|${e.record}, log has ${v ?? 'nothing'}`);
  }
  return out;
}
