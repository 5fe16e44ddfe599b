import type { Random } from '../../core/random';
import type { Micros } from '../../core/time';

interface Connection {
  /** A request is awaiting its response (correlation id), or -1. */
  inFlight: number;
  sentAt: Micros;
  /** Backing off after a failure until this time, or -1. */
  backoffUntil: Micros;
}

/**
 * Per-destination request state of the raft client [raft/.../RequestManager.java]: at most one request in flight
 * to a node; after a failed response, a disconnect or a timeout the node backs off
 * `controller.quorum.retry.backoff.ms`; a request unanswered for `controller.quorum.request.timeout.ms` has
 * timed out. Bootstrap servers (the voters) are tried from a random start so fetchers spread.
 */
export class RequestManager {
  private readonly conns = new Map<string, Connection>();

  constructor(
    private readonly bootstrapServers: readonly string[],
    private readonly retryBackoff: Micros,
    private readonly requestTimeout: Micros,
    private readonly random: Random,
  ) {}

  private get(node: string): Connection | undefined {
    return this.conns.get(node);
  }

  isBackingOff(node: string, now: Micros): boolean {
    const c = this.get(node);
    return c !== undefined && c.backoffUntil > now;
  }

  remainingBackoff(node: string, now: Micros): Micros {
    const c = this.get(node);
    return c !== undefined && c.backoffUntil > now ? c.backoffUntil - now : 0;
  }

  hasInflight(node: string): boolean {
    const c = this.get(node);
    return c !== undefined && c.inFlight >= 0;
  }

  /** Nothing in flight and no backoff under way. */
  isReady(node: string, now: Micros): boolean {
    const c = this.get(node);
    return c === undefined || (c.inFlight < 0 && c.backoffUntil <= now);
  }

  remainingRequestTime(node: string, now: Micros): Micros {
    const c = this.get(node);
    return c !== undefined && c.inFlight >= 0 ? Math.max(0, c.sentAt + this.requestTimeout - now) : 0;
  }

  hasAnyInflightRequest(): boolean {
    for (const c of this.conns.values()) if (c.inFlight >= 0) return true;
    return false;
  }

  /** A ready bootstrap server, starting from a random one; none while any request is in flight [RequestManager.findReadyBootstrapServer]. */
  findReadyBootstrapServer(now: Micros): string | null {
    const n = this.bootstrapServers.length;
    if (n === 0 || this.hasAnyInflightRequest()) return null;
    const start = this.random.int(0, n);
    for (let i = 0; i < n; i++) {
      const node = this.bootstrapServers[(start + i) % n]!;
      if (this.isReady(node, now)) return node;
    }
    return null;
  }

  /** How long until a bootstrap server could be tried [RequestManager.backoffBeforeAvailableBootstrapServer]. */
  backoffBeforeAvailableBootstrapServer(now: Micros): Micros {
    let min = this.retryBackoff;
    for (const c of this.conns.values()) {
      if (c.inFlight >= 0) return Math.max(0, c.sentAt + this.requestTimeout - now);
      if (c.backoffUntil > now) min = Math.min(min, c.backoffUntil - now);
    }
    for (const node of this.bootstrapServers) if (this.isReady(node, now)) return 0;
    return min;
  }

  onRequestSent(node: string, correlationId: number, now: Micros): void {
    let c = this.get(node);
    if (!c) this.conns.set(node, (c = { inFlight: -1, sentAt: 0, backoffUntil: -1 }));
    c.inFlight = correlationId;
    c.sentAt = now;
    c.backoffUntil = -1;
  }

  isResponseExpected(node: string, correlationId: number): boolean {
    const c = this.get(node);
    return c !== undefined && c.inFlight === correlationId;
  }

  /** A response arrived: ready again on success, back off on failure [RequestManager.onResponseResult]. */
  onResponseResult(node: string, correlationId: number, success: boolean, now: Micros): void {
    const c = this.get(node);
    if (!c || c.inFlight !== correlationId) return;
    if (success) this.conns.delete(node);
    else this.fail(c, now);
  }

  /** The connection broke: a request in flight on it failed. Returns whether one was. */
  onDisconnect(node: string, now: Micros): boolean {
    const c = this.get(node);
    if (!c || c.inFlight < 0) return false;
    this.fail(c, now);
    return true;
  }

  /** Requests unanswered for the request timeout: they fail (the caller closes their connections). */
  expireTimedOut(now: Micros): string[] {
    let out: string[] | null = null;
    for (const [node, c] of this.conns) {
      if (c.inFlight >= 0 && now >= c.sentAt + this.requestTimeout) {
        this.fail(c, now);
        (out ??= []).push(node);
      }
    }
    return out ?? [];
  }

  /** The earliest time a request in flight times out, or +Infinity. */
  nextTimeout(): Micros {
    let t = Number.POSITIVE_INFINITY;
    for (const c of this.conns.values()) if (c.inFlight >= 0) t = Math.min(t, c.sentAt + this.requestTimeout);
    return t;
  }

  private fail(c: Connection, now: Micros): void {
    c.inFlight = -1;
    c.backoffUntil = now + this.retryBackoff;
  }

  reset(node: string): void {
    this.conns.delete(node);
  }

  /** Forget every request (a state change: responses to old requests are no longer expected). */
  resetAll(): void {
    this.conns.clear();
  }
}
