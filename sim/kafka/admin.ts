import { ms } from '../core/time';
import type { ProcessContext } from '../world/host';
import { Process } from '../world/process';
import type { KafkaError } from './errors';
import { NetworkClient, type Outcome } from './net/networkClient';
import type { CreateTopicsRequest, CreateTopicsResponse } from './protocol';

declare module '../core/trace' {
  interface TraceKinds {
    'admin.create-topics': { topics: { name: string; error: string; message: string }[] };
  }
}

export interface TopicToCreate {
  readonly name: string;
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly configs: Readonly<Record<string, string>>;
}

/**
 * An admin client (kafka-topics --create): sends CreateTopics to the controllers until the active one
 * accepts it, following NOT_CONTROLLER hints, and reports the outcome.
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

  private createTopics(target: string): void {
    this.attempt++;
    const body: Omit<CreateTopicsRequest, 'correlationId'> = { type: 'CreateTopics', topics: this.pending };
    this.net.send(target, body, { timeoutMs: 5000 }, (o: Outcome<CreateTopicsResponse & { error?: string; leaderHint?: string | null }>) => {
      if (o.ok && o.response.error === undefined) {
        const answers = o.response.topics.map((t) => ({ ...t }));
        this.trace.emit('admin.create-topics', this.id, { topics: answers });
        // A topic that could not be placed yet (brokers still registering) is tried again.
        const settled = answers.filter((r) => r.error !== 'INVALID_REPLICATION_FACTOR');
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
