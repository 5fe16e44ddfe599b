import { ms, type Micros } from '../core/time';
import { defineKinds, num, oneOf, str, type KindsOf } from '../core/traceSchema';
import type { Admin } from '../kafka/admin';
import { brokerActorId } from '../kafka/client/metadataCache';
import type { KafkaCluster } from '../kafka/cluster';
import { isUnderReplicated } from '../kafka/metadata/partitionHealth';
import type { MetadataResponse } from '../kafka/protocol';
import type { World } from '../world/world';
import type { RollingRestartAction } from './actions';

/** What the operator did or saw at one step of a rolling restart. */
export const ROLL_STEPS = ['stop', 'kill', 'exited', 'start', 'fails-to-start', 'back', 'in-sync', 'paused', 'gave-up', 'done'] as const;
export type RollStep = (typeof ROLL_STEPS)[number];

export const OPERATOR_KINDS = defineKinds({
  /** A step of a rolling restart (action `index`): the node it is about ('' for the end) and what happened. */
  'operator.step': { index: num, target: str, step: oneOf(...ROLL_STEPS), detail: str },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof OPERATOR_KINDS> {}
}

/** How often the script checks whether it may go on (an operator's `sleep 1` in a loop). */
export const ROLL_CHECK_INTERVAL_MS = 1000;

/** Partitions that `kafka-topics --describe --under-replicated-partitions` would list, from one broker's Metadata. */
export function underReplicatedPartitions(m: MetadataResponse): string[] {
  const out: string[] = [];
  for (const t of m.topics) for (const p of t.partitions) if (isUnderReplicated(p)) out.push(`${t.name}-${p.partition}`);
  return out;
}

/**
 * Runs a rolling restart the way an operator's script does: for each target in turn, `systemctl stop` (SIGTERM,
 * waiting for the process to exit) or `kill -9`, the `down` time, `systemctl start`, then the wait: a fixed
 * pause, or polling until the restarted node answers again — a broker its own Metadata, listing itself; a
 * controller DescribeQuorum, its log caught up to the high watermark — and no partition is under-replicated.
 * The host operations are the operator's shell; everything it learns about Kafka comes through its admin
 * client's requests, as a real script's does. A wait past `timeout` aborts the roll.
 */
export class RollingRestart {
  private readonly order: string[];
  private readonly failing: ReadonlySet<string>;
  private readonly brokers: string[];

  constructor(
    private readonly world: World,
    cluster: KafkaCluster,
    private readonly admin: () => Admin | undefined,
    private readonly a: RollingRestartAction,
  ) {
    const resolver = world.resolver;
    const resolve = (sels: readonly string[]) => [...new Set(sels.flatMap((s) => resolver.resolve(s) ?? []))];
    this.order = resolve(a.targets).filter((id) => cluster.controllerIds.includes(id) || cluster.brokerIds.some((b) => brokerActorId(b) === id));
    this.failing = new Set(resolve(a.failToStart));
    this.brokers = cluster.brokerIds.map(brokerActorId);
  }

  start(): void {
    this.step(0);
  }

  private emit(target: string, step: RollStep, detail = ''): void {
    this.world.trace.emit('operator.step', 'operator', { index: this.a.index, target, step, detail });
  }

  private after(delay: Micros, fn: () => void): void {
    this.world.scheduler.after(delay, fn, undefined, `rolling restart ${this.a.index}`);
  }

  private step(i: number): void {
    const id = this.order[i];
    if (id === undefined) {
      this.emit('', 'done', `${this.order.length} node(s) restarted`);
      return;
    }
    const host = this.world.host(id);
    const exited = () => {
      this.emit(id, 'exited');
      this.after(this.a.downUs, () => this.startAgain(i));
    };
    if (this.a.via === 'stop') {
      this.emit(id, 'stop', 'systemctl stop (SIGTERM)');
      if (!host.stop(exited)) exited();
    } else {
      this.emit(id, 'kill', 'kill -9');
      host.crash();
      exited();
    }
  }

  private startAgain(i: number): void {
    const id = this.order[i]!;
    if (this.failing.has(id)) this.emit(id, 'fails-to-start', 'the new version does not come up');
    else {
      this.emit(id, 'start', 'systemctl start');
      this.world.host(id).restart();
    }
    const w = this.a.wait;
    if (w.kind === 'pause') {
      this.after(w.us, () => {
        this.emit(id, 'paused', `${w.us / 1000} ms`);
        this.step(i + 1);
      });
      return;
    }
    this.waitInSync(i, this.world.now, this.world.now + this.a.timeoutUs, false, 0);
  }

  /** Polls until the node is back and nothing is under-replicated, or gives up at the deadline. */
  private waitInSync(i: number, startedAt: Micros, deadline: Micros, back: boolean, attempt: number): void {
    const id = this.order[i]!;
    const admin = this.admin();
    const again = (isBack: boolean, detail: string) => {
      if (this.world.now + ms(ROLL_CHECK_INTERVAL_MS) > deadline) {
        this.emit(id, 'gave-up', `still waiting after ${this.a.timeoutUs / 1000} ms (${detail}); the roll stops here`);
        return;
      }
      this.after(ms(ROLL_CHECK_INTERVAL_MS), () => this.waitInSync(i, startedAt, deadline, isBack, attempt + 1));
    };
    if (!admin?.alive) return;
    if (!back) {
      this.checkBack(admin, id, startedAt, (ok) => {
        if (!ok) return again(false, `${id} is not back`);
        this.emit(id, 'back');
        this.waitInSync(i, startedAt, deadline, true, attempt);
      });
      return;
    }
    // Ask the brokers in turn (never first the one just restarted), as an admin client picks another node on failure.
    const others = this.brokers.filter((b) => b !== id);
    const ask = others.length > 0 ? others : this.brokers;
    const via = ask[attempt % ask.length]!;
    admin.describeTopicsVia(via, (m) => {
      if (!m) return again(true, `${via} did not answer`);
      const urp = underReplicatedPartitions(m);
      if (urp.length > 0) return again(true, `${urp.length} under-replicated: ${urp.slice(0, 3).join(', ')}${urp.length > 3 ? ', ...' : ''}`);
      this.emit(id, 'in-sync', `no under-replicated partitions (asked ${via})`);
      this.step(i + 1);
    });
  }

  /**
   * A broker answers its own Metadata and lists itself; a controller has fetched from the quorum leader since it
   * was started and its log has caught up with the high watermark (kafka-metadata-quorum describe --replication:
   * a recent LastFetchTimestamp, no lag).
   */
  private checkBack(admin: Admin, id: string, startedAt: Micros, done: (back: boolean) => void): void {
    if (this.brokers.includes(id)) {
      admin.describeTopicsVia(id, (m) => done(m !== null && m.brokers.some((b) => brokerActorId(b.id) === id)));
      return;
    }
    admin.describeQuorum((q) => {
      const voter = q?.voters.find((v) => v.replicaId === id);
      done(q !== null && voter !== undefined && voter.lastFetchTimestamp >= startedAt && voter.logEndOffset >= q.highWatermark);
    });
  }
}
