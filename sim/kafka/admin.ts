import { ms } from '../core/time';
import type { ProcessContext } from '../world/host';
import { Process } from '../world/process';
import type { KafkaError } from './errors';
import { NetworkClient, type Outcome } from './net/networkClient';
import type {
  AlterPartitionReassignmentsResponse,
  CreateTopicsRequest,
  CreateTopicsResponse,
  ElectLeadersResponse,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  ListPartitionReassignmentsResponse,
  MetadataResponse,
  TopicPartition,
} from './protocol';
import type { QuorumDescription } from './raft/kafkaRaftClient';
import type { CreatePartitionsResponse, CreatePartitionsTopic } from './controller/rules/createPartitions';
import { defineKinds, list, num, obj, str, type KindsOf } from '../core/traceSchema';

/** The operator's admin requests and the controller's answers. */
export const ADMIN_KINDS = defineKinds({
  /** The controller answered a CreateTopics: per topic, its error code (NONE when created) and message. */
  'admin.create-topics': { topics: list(obj({ name: str, error: str, message: str })) },
  /** The controller answered a CreatePartitions (kafka-topics --alter --partitions). */
  'admin.create-partitions': { topic: str, count: num, error: str, message: str },
  /** The controller answered an ElectLeaders (kafka-leader-election): per partition, its error (NONE: elected). */
  'admin.elect-leaders': { electionType: str, partitions: list(obj({ topic: str, partition: num, error: str })) },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof ADMIN_KINDS> {}
}

export interface TopicToCreate {
  readonly name: string;
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly configs: Readonly<Record<string, string>>;
  /** A manual replica assignment (kafka-topics --replica-assignment); numPartitions and replicationFactor are then -1. */
  readonly assignments?: readonly (readonly number[])[];
  /** An internal topic (__consumer_offsets): a refusal is final, not retried, and the boot goes on without it. */
  readonly internal?: boolean;
}

/**
 * An admin client (kafka-topics): sends CreateTopics — and later operator requests such as CreatePartitions —
 * to the controllers until the active one answers, following NOT_CONTROLLER hints, and reports the outcome.
 */
export class Admin extends Process {
  private readonly net = new NetworkClient(this);
  private attempt = 0;
  private pending: TopicToCreate[];
  done = false;
  results: { name: string; error: KafkaError; message: string }[] = [];

  constructor(
    ctx: ProcessContext,
    id: string,
    private readonly controllers: readonly string[],
    private readonly topics: readonly TopicToCreate[],
  ) {
    super(id, ctx);
    this.pending = [...topics];
  }

  override onStart(): void {
    if (this.topics.length === 0) {
      this.done = true;
      return;
    }
    this.createTopics(this.controllers[0]!);
  }

  onMessage(from: string, msg: unknown): void {
    this.net.handleResponse(from, msg as { correlationId?: number });
  }

  override onDisconnect(peer: string): void {
    this.net.onDisconnect(peer);
  }

  /**
   * Grows `topic` to `count` partitions (kafka-topics --alter --partitions): CreatePartitions to the active
   * controller, retried every 200 ms through controller changes until a controller answers for the topic.
   */
  createPartitions(topic: string, count: number, onDone?: (error: KafkaError, message: string) => void): void {
    let attempt = 0;
    const send = (target: string): void => {
      attempt++;
      const body: { type: 'CreatePartitions'; topics: CreatePartitionsTopic[] } = { type: 'CreatePartitions', topics: [{ name: topic, count }] };
      this.net.send(target, body, { timeoutMs: 5000 }, (o: Outcome<CreatePartitionsResponse & { error?: string; leaderHint?: string | null }>) => {
        const result = o.ok && o.response.error === undefined ? o.response.results.find((r) => r.name === topic) : undefined;
        if (result) {
          this.trace.emit('admin.create-partitions', this.id, { topic, count, error: result.error, message: result.message });
          onDone?.(result.error, result.message);
          return;
        }
        const hint = o.ok ? o.response.leaderHint : null;
        this.setTimer(ms(200), () => send(hint ?? this.controllers[attempt % this.controllers.length]!));
      });
    };
    send(this.controllers[0]!);
  }

  /**
   * Metadata from one broker, as `kafka-topics --describe --bootstrap-server <broker>` asks it: null when the
   * broker does not answer (down, still starting, or cut off) within `timeoutMs`.
   */
  describeTopicsVia(broker: string, onDone: (r: MetadataResponse | null) => void, timeoutMs = 2000): void {
    this.net.send(broker, { type: 'Metadata', topics: null }, { timeoutMs }, (o: Outcome<MetadataResponse>) => onDone(o.ok ? o.response : null));
  }

  /**
   * DescribeQuorum (kafka-metadata-quorum describe --status): asks the controllers in turn, following the
   * leader hint, until the quorum leader answers; null when none does within one round.
   */
  describeQuorum(onDone: (q: QuorumDescription | null) => void, timeoutMs = 2000): void {
    const tried = new Set<string>();
    const ask = (target: string): void => {
      tried.add(target);
      this.net.send(target, { type: 'DescribeQuorum' }, { timeoutMs }, (o: Outcome<{ error: KafkaError; quorum?: QuorumDescription; leaderHint?: string | null }>) => {
        if (o.ok && o.response.error === 'NONE' && o.response.quorum) {
          onDone(o.response.quorum);
          return;
        }
        const hint = o.ok ? o.response.leaderHint : null;
        const next = hint && !tried.has(hint) ? hint : this.controllers.find((c) => !tried.has(c));
        if (next === undefined) onDone(null);
        else ask(next);
      });
    };
    ask(this.controllers[0]!);
  }

  /**
   * One request to the active controller: sent to the controllers in turn, following NOT_CONTROLLER hints,
   * every 200 ms until a controller answers it (as the admin client's controller channel does).
   */
  private toController<R>(body: { type: string; [field: string]: unknown }, onAnswer: (r: R) => void): void {
    let attempt = 0;
    const send = (target: string): void => {
      attempt++;
      // A copy per attempt: `send` stamps the correlation id on the body it is given, and this one is sent again.
      this.net.send(target, { ...body }, { timeoutMs: 5000 }, (o: Outcome<R & { error?: string; leaderHint?: string | null }>) => {
        if (o.ok && o.response.error !== 'NOT_CONTROLLER') {
          onAnswer(o.response);
          return;
        }
        const hint = o.ok ? o.response.leaderHint : null;
        this.setTimer(ms(200), () => send(hint ?? this.controllers[attempt % this.controllers.length]!));
      });
    };
    send(this.controllers[0]!);
  }

  /** AlterPartitionReassignments (kafka-reassign-partitions --execute; replicas null: --cancel). */
  alterPartitionReassignments(
    partitions: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    onDone: (r: AlterPartitionReassignmentsResponse['partitions']) => void,
  ): void {
    this.toController<AlterPartitionReassignmentsResponse>({ type: 'AlterPartitionReassignments', partitions }, (r) => onDone(r.partitions));
  }

  /** ListPartitionReassignments (kafka-reassign-partitions --verify, --list). */
  listPartitionReassignments(onDone: (r: ListPartitionReassignmentsResponse['reassignments']) => void): void {
    this.toController<ListPartitionReassignmentsResponse>({ type: 'ListPartitionReassignments' }, (r) => onDone(r.reassignments));
  }

  /** IncrementalAlterConfigs (kafka-configs --alter --add-config / --delete-config). */
  alterConfigs(changes: IncrementalAlterConfigsRequest['changes'], onDone: (error: KafkaError, message: string) => void): void {
    this.toController<IncrementalAlterConfigsResponse>({ type: 'IncrementalAlterConfigs', changes }, (r) => onDone(r.error, r.message));
  }

  /** ElectLeaders (kafka-leader-election --election-type); partitions null = --all-topic-partitions. */
  electLeaders(electionType: 'PREFERRED' | 'UNCLEAN', partitions: readonly TopicPartition[] | null, onDone?: (r: ElectLeadersResponse['partitions']) => void): void {
    this.toController<ElectLeadersResponse>({ type: 'ElectLeaders', electionType, partitions }, (r) => {
      this.trace.emit('admin.elect-leaders', this.id, { electionType, partitions: r.partitions.map((p) => ({ topic: p.topic, partition: p.partition, error: p.error })) });
      onDone?.(r.partitions);
    });
  }

  private createTopics(target: string): void {
    this.attempt++;
    const body: Omit<CreateTopicsRequest, 'correlationId'> = { type: 'CreateTopics', topics: this.pending };
    this.net.send(target, body, { timeoutMs: 5000 }, (o: Outcome<CreateTopicsResponse & { error?: string; leaderHint?: string | null }>) => {
      if (o.ok && o.response.error === undefined) {
        const answers = o.response.topics.map((t) => ({ ...t }));
        this.trace.emit('admin.create-topics', this.id, { topics: answers });
        // A topic that could not be placed yet (brokers still registering) is tried again; an internal one that
        // cannot be placed stays missing, as Kafka's internal topic creation fails while the cluster is too small.
        const internal = new Set(this.pending.filter((t) => t.internal).map((t) => t.name));
        const settled = answers.filter((r) => r.error !== 'INVALID_REPLICATION_FACTOR' || internal.has(r.name));
        this.results.push(...settled);
        this.pending = this.pending.filter((t) => !settled.some((r) => r.name === t.name));
        if (this.pending.length === 0) {
          this.done = true;
          return;
        }
      }
      const hint = o.ok ? o.response.leaderHint : null;
      const next = hint ?? this.controllers[this.attempt % this.controllers.length]!;
      this.setTimer(ms(200), () => this.createTopics(next));
    });
  }
}
