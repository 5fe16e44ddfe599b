/**
 * Finding the group coordinator: FindCoordinator to the least loaded broker, retried after retry.backoff.ms,
 * forgotten on NOT_COORDINATOR and the like. Shared by both group protocols' members.
 * [clients/.../consumer/internals/AbstractCoordinator.java `lookupCoordinator`, `markCoordinatorUnknown`;
 * CoordinatorRequestManager.java (the new consumer)]
 */
import type { Micros } from '../../../core/time';
import { ms } from '../../../core/time';
import type { ConsumerConfig } from '../../config/configs';
import type { NetworkClient } from '../../net/networkClient';
import type { FindCoordinatorResponse } from '../../protocol';
import { brokerActorId } from '../metadataCache';

export interface CoordinatorDiscoveryHost {
  readonly now: Micros;
  readonly net: NetworkClient;
  readonly config: Pick<ConsumerConfig, 'request.timeout.ms' | 'retry.backoff.ms'>;
  setTimer(delay: Micros, fn: () => void): unknown;
  leastLoadedNode(): number;
  requestMetadata(): void;
  wake(): void;
}

export class CoordinatorDiscovery {
  /** The coordinator's broker id, or null while unknown. */
  coordinator: number | null = null;
  private inFlight = false;
  private retryAtUs = 0;
  closed = false;

  constructor(
    private readonly host: CoordinatorDiscoveryHost,
    private readonly groupId: string,
    /** A coordinator was found (the classic member restarts its session). */
    private readonly onFound: () => void = () => {},
  ) {}

  get known(): boolean {
    return this.coordinator !== null;
  }

  /** The coordinator's actor id; only while known. */
  actor(): string {
    return brokerActorId(this.coordinator!);
  }

  /** When a lookup may be retried (for the poll loop's wake-up), or Infinity when the coordinator is known. */
  retryAt(): Micros {
    return this.coordinator === null ? this.retryAtUs : Infinity;
  }

  /** True when known; otherwise starts a lookup. [AbstractCoordinator.java `ensureCoordinatorReady`] */
  ensureReady(): boolean {
    if (this.coordinator !== null) return true;
    this.lookup();
    return false;
  }

  lookup(): void {
    const h = this.host;
    if (this.inFlight || h.now < this.retryAtUs || this.closed) return;
    this.inFlight = true;
    const node = h.leastLoadedNode();
    const request = { type: 'FindCoordinator' as const, key: this.groupId, keyType: 'GROUP' as const };
    h.net.send<typeof request, FindCoordinatorResponse>(brokerActorId(node), request, { timeoutMs: h.config['request.timeout.ms'] }, (o) => {
      this.inFlight = false;
      if (o.ok && o.response.error === 'NONE' && o.response.nodeId >= 0) {
        this.coordinator = o.response.nodeId;
        this.onFound();
      } else {
        this.retryAtUs = h.now + ms(h.config['retry.backoff.ms']);
        h.setTimer(ms(h.config['retry.backoff.ms']), () => h.wake());
        if (!o.ok) h.requestMetadata();
      }
      h.wake();
    });
  }

  /** Forgets the coordinator; the next poll or heartbeat looks it up again. [AbstractCoordinator.java `markCoordinatorUnknown`] */
  markUnknown(_cause: string): void {
    if (this.coordinator === null) return;
    this.coordinator = null;
    this.host.wake();
  }
}
