import type { FaultEntry } from '../world/nemesis';
import type { KeySpec } from '../kafka/client/producer/workload';

/**
 * A scenario as plain, JSON-serialisable data: the cluster, its topics, the clients and their workloads,
 * a fault schedule, how long to run, what it teaches, and what must come out. The CLI loads it from a
 * file, the UI edits it and puts it in a URL, and fast-check generates it.
 *
 * Times are milliseconds (numbers) or duration texts ("10s", "500ms", "2m").
 */
export interface ScenarioSpec {
  readonly id: string;
  readonly title?: string;
  /** What it teaches, in a few plain sentences. */
  readonly summary?: string;
  /** Longer teaching text (the lesson), shown beside the run. */
  readonly lesson?: string;
  /** Guide topics it illustrates (free text, for the gallery). */
  readonly tags?: readonly string[];
  readonly seed?: number | string;
  /** How long to run, faults included. */
  readonly duration: number | string;
  /**
   * A quiet period after `duration`: faults are undone, producers stop, the cluster recovers and consumers
   * drain, so the checkers judge the healed cluster. Default 30s; "0s" for none.
   */
  readonly quiet?: number | string;
  readonly cluster?: ClusterSpec;
  readonly topics?: readonly TopicSpec[];
  readonly producers?: readonly ProducerSpec[];
  readonly consumers?: readonly ConsumerSpec[];
  /** Share consumers (KIP-932 share groups), see sim/scenario/shareConsumersSpec.ts. */
  readonly shareConsumers?: readonly ShareConsumerSpec[];
  /** Group configs (kafka-configs --entity-type groups), set before the clients start. */
  readonly groups?: readonly GroupConfigSpec[];
  readonly faults?: readonly FaultEntry[];
  /** Operator actions at moments of the run (what an operator does with kafka-topics and friends). */
  readonly actions?: readonly ActionSpec[];
  readonly captions?: readonly CaptionSpec[];
  readonly expect?: readonly ExpectationSpec[];
  /** How much the trace records: "minimal" leaves out routine replica detail (followers' copies and high watermarks), "full" adds every network message (for the UI's sequence diagram). */
  readonly trace?: 'minimal' | 'standard' | 'full';
  /** Metrics sampling (`metrics.sample` events, Kafka's JMX names): false, or an interval. Default every 1s, off in a minimal trace. */
  readonly metrics?: false | { readonly interval?: string | number };
  /**
   * Alert rules over the sampled metrics, evaluated on simulated time like Prometheus rules: a rule
   * (`"UnderMinIsrPartitionCount > 0 for 30s"`), or `{ "name": "under-min-isr", "rule": "..." }`. Each fires and
   * resolves in the trace (`alert.fire`, `alert.resolve`) and is reported as the check `alert.<name>`.
   */
  readonly alerts?: readonly (string | AlertSpec)[];
}

export interface AlertSpec {
  /** What the report calls it (`alert.<name>`): letters, digits, `-`, `_` and `.`. Default: the rule's text. */
  readonly name?: string;
  readonly rule: string;
}

export interface ClusterSpec {
  /** Finalized feature levels: `{"transaction.version": 1}` (KIP-890; default 2), `{"share.version": 2}` (share groups 1, their dead-letter queue 2; default 1). */
  readonly features?: { readonly 'transaction.version'?: 1 | 2; readonly 'share.version'?: 0 | 1 | 2 };
  /** Controller quorum voters: 1, 3 or 5. Default 3. */
  readonly controllers?: number;
  /** Brokers, ids 1..n. Default 3. */
  readonly brokers?: number;
  /** What the story and the UI call brokers 1..n, in id order (ids stay 1..n): `["london", "paris", "tokyo"]`. */
  readonly brokerNames?: readonly string[];
  /** Rack of each broker in order (cycled); sets broker.rack and makes placement rack-aware. */
  readonly racks?: readonly string[];
  /** Zone of each broker in order (cycled); default: the rack, or one zone. */
  readonly zones?: readonly string[];
  /** Broker configs (Kafka names) for every broker. */
  readonly broker?: Readonly<Record<string, unknown>>;
  /** KIP-966 Eligible Leader Replicas (eligible.leader.replicas.version=1). Default true, as new 4.1+ clusters. */
  readonly eligibleLeaderReplicas?: boolean;
  /** The pre-KIP-101 rule: a follower truncates to its high watermark instead of asking the leader (a lesson switch). */
  readonly legacyHighWatermarkTruncation?: boolean;
  readonly network?: {
    readonly sameZoneLatencyMs?: number;
    readonly crossZoneLatencyMs?: number;
    readonly jitterMs?: number;
    readonly bandwidthBytesPerSec?: number | null;
  };
  readonly disk?: {
    readonly fsyncLatencyMs?: number;
    /** OS writeback of dirty pages after this long; null = never. */
    readonly writebackDelayMs?: number | null;
    readonly tornWriteProbability?: number;
  };
}

export interface TopicSpec {
  readonly name: string;
  readonly partitions?: number;
  readonly replicationFactor?: number;
  /** Topic configs (Kafka names), e.g. {"min.insync.replicas": 2}. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Explicit replica assignment per partition (broker ids, first = preferred leader). */
  readonly assignment?: readonly (readonly number[])[];
}

export interface ProducerSpec {
  readonly id: string;
  /** Producer configs (Kafka names). */
  readonly config?: Readonly<Record<string, unknown>>;
  readonly workload: WorkloadSpec | readonly WorkloadSpec[];
  readonly zone?: string;
  /** When the producer process starts ("5s"; default with the scenario): a second instance of a transactional.id. */
  readonly start?: string | number;
}

export interface WorkloadSpec {
  readonly topic: string;
  /** Records per second. */
  readonly rate?: number;
  /** Explicit send times (ms or duration texts). */
  readonly at?: readonly (number | string)[];
  readonly start?: number | string;
  readonly stop?: number | string;
  readonly maxRecords?: number;
  readonly keys?: KeySpec;
  readonly valueBytes?: number;
  readonly partition?: number;
  /** With transactional.id: records per transaction (default 100). */
  readonly transactionSize?: number;
  /** With transactionSize: the share of transactions the application aborts (0..1, default 0). */
  readonly abortProbability?: number;
  /**
   * Send records as tombstones (null values, which delete their key on a compacted topic): true for every one,
   * or the share of them (0 to 1). Needs keys.
   */
  readonly tombstones?: boolean | number;
}

export interface ConsumerSpec {
  readonly id: string;
  /** group.id; absent = manual assignment of every partition of the topics. */
  readonly group?: string;
  readonly topics: readonly string[];
  /** Consumer configs (Kafka names). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** How the application processes what it polls (see the consumer's ProcessingModel). */
  readonly processing?: Readonly<Record<string, unknown>>;
  /** Start later than the cluster. */
  readonly start?: number | string;
  readonly zone?: string;
  /**
   * A consume-transform-produce application: one derived record per input to `topic`, then the input positions
   * committed — `guarantee` at_least_once (produce, flush, commitSync) or exactly_once_v2 (in one transaction
   * with sendOffsetsToTransaction). `producer`: configs of its producer (process `<id>-producer`, same host).
   */
  readonly transform?: { readonly topic: string; readonly guarantee?: 'at_least_once' | 'exactly_once_v2'; readonly producer?: Readonly<Record<string, unknown>> };
}

export interface ShareConsumerSpec {
  /** The consumer's id, or with `count` the prefix of `<id>-1` .. `<id>-<count>`. */
  readonly id: string;
  readonly count?: number;
  /** The share group (group.id). */
  readonly group: string;
  readonly topics: readonly string[];
  /** Share consumer configs (Kafka names): share.acknowledgement.mode, max.poll.records, fetch.max.wait.ms, ... */
  readonly config?: Readonly<Record<string, unknown>>;
  /** recordTime, commit (piggyback, sync, async), failures [{keyPrefix | valuePrefix, times: n | "always", ack: release | reject}], pollTimeoutMs, stop. */
  readonly processing?: Readonly<Record<string, unknown>>;
  readonly start?: number | string;
  readonly zone?: string;
}

/** The dynamic configs of one consumer group, e.g. {"consumer.session.timeout.ms": 50000} (consumer protocol). */
export interface GroupConfigSpec {
  /** A group of the scenario's consumers. */
  readonly id: string;
  readonly config: Readonly<Record<string, unknown>>;
}

/**
 * An operator action at a moment of the run, named by `action`. Each carries `at` and its own fields.
 */
export type ActionSpec = CreatePartitionsActionSpec | RollingRestartActionSpec | ReassignPartitionsActionSpec | ElectLeadersActionSpec;

/** kafka-topics --alter --partitions: CreatePartitions to the controller; producers see it on their next metadata refresh. */
export interface CreatePartitionsActionSpec {
  readonly at: number | string;
  readonly action: 'create-partitions';
  readonly topic: string;
  /** The topic's partition count after the action, in all (it can only grow). */
  readonly count: number;
}

/**
 * A rolling restart, as an operator scripts it: for each target in turn, stop it (SIGTERM, a controlled
 * shutdown) or kill it (kill -9), start it again, and wait before the next one: until the restarted node
 * answers again and no partition is under-replicated (`kafka-topics --describe --under-replicated-partitions`
 * prints nothing), or for a fixed pause after the start.
 */
export interface RollingRestartActionSpec {
  readonly at: number | string;
  readonly action: 'rolling-restart';
  /** Hosts in the order they are restarted: ids or selectors (`tag:broker`, `broker:2`, `controller:active`), resolved at `at`. */
  readonly targets: readonly string[];
  /** How each node is taken down: "stop" (SIGTERM, default) or "crash" (kill -9). */
  readonly via?: 'stop' | 'crash';
  /** Between steps: "no-under-replicated" (default), or a pause after each start ("30s"; "0s" for none). */
  readonly wait?: number | string;
  /** How long each node stays down once its process is gone (an upgrade's install time). Default 0. */
  readonly down?: number | string;
  /** A wait longer than this aborts the roll, as a careful script does. Default "5m". */
  readonly timeout?: number | string;
  /** Targets whose new version fails to start: they are taken down and never come back. */
  readonly failToStart?: readonly string[];
}

/**
 * kafka-reassign-partitions --execute (then --verify until done): move partitions to new replicas. With a
 * throttle, the tool first sets leader/follower.replication.throttled.rate on every broker involved and the
 * throttled-replicas topic configs, and --verify removes them once the reassignment completes.
 */
export interface ReassignPartitionsActionSpec {
  readonly at: number | string;
  readonly action: 'reassign-partitions';
  /** The tool's reassignment JSON: each partition's new replicas, the first the preferred leader. */
  readonly partitions: readonly { readonly topic: string; readonly partition: number; readonly replicas: readonly number[] }[];
  /** --throttle: bytes per second for the replication that catches the new replicas up. */
  readonly throttle?: number;
}

/** kafka-leader-election: a preferred (or unclean) election for the given partitions, or all of them. */
export interface ElectLeadersActionSpec {
  readonly at: number | string;
  readonly action: 'elect-leaders';
  /** --election-type: "preferred" (default) or "unclean". */
  readonly election?: 'preferred' | 'unclean';
  /** --topic/--partition pairs; absent = --all-topic-partitions. */
  readonly partitions?: readonly { readonly topic: string; readonly partition: number }[];
}

export interface CaptionSpec {
  /** From when the caption shows (with `on`: from when it waits for its event). */
  readonly at: number | string;
  /** The story; `{leader:orders/0}`, `{follower:orders/0#1}`, `{broker:2}` name the node as the UI does ("broker 2"). */
  readonly text: string;
  /** The trace event kind the caption describes: it shows right after the first such event at or after `at`. */
  readonly on?: string;
  /** Fields that event must have, e.g. {"topic": "orders", "role": "leader"}. */
  readonly where?: Readonly<Record<string, string | number | boolean>>;
}

export type ExpectationOp = '=' | '!=' | '>' | '>=' | '<' | '<=';

/** A statement about a checker's result: `check op value`, e.g. lost-write = 0. */
export interface ExpectationSpec {
  /** A check name from the report (e.g. "lost-write", "errors.NOT_ENOUGH_REPLICAS", "unavailability.longest-ms"). */
  readonly check: string;
  readonly op: ExpectationOp;
  readonly value: number;
  /** Plain words for the report; generated when absent. */
  readonly description?: string;
  /**
   * Judge the check over this window of scenario time only, e.g. ["20s", "40s"]: what happened within it (sends
   * made in it and their outcomes, errors, elections, stalls). Only checks that count moments take one.
   */
  readonly during?: readonly [number | string, number | string];
}
