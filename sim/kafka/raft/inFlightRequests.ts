import type { Micros } from '../../core/time';

/**
 * The network layer's own view of requests awaiting a response, per connection, kept apart from the raft
 * client's RequestManager (which forgets its requests on every state change) [clients/.../NetworkClient.java
 * `handleTimedOutRequests`, InFlightRequests.java]: a request unanswered for request.timeout.ms closes its
 * connection, so a connection that broke silently (a cut link) is replaced instead of swallowing every retry.
 */
export class InFlightRequests {
  /** Per peer: correlation id -> send time, in send order. */
  private readonly byPeer = new Map<string, Map<number, Micros>>();

  constructor(private readonly requestTimeout: Micros) {}

  sent(peer: string, correlationId: number, now: Micros): void {
    let m = this.byPeer.get(peer);
    if (!m) this.byPeer.set(peer, (m = new Map()));
    m.set(correlationId, now);
  }

  /** A response arrived. */
  completed(peer: string, correlationId: number): void {
    const m = this.byPeer.get(peer);
    if (m && m.delete(correlationId) && m.size === 0) this.byPeer.delete(peer);
  }

  /** The connection broke: nothing on it will be answered. */
  clear(peer: string): void {
    this.byPeer.delete(peer);
  }

  /** Peers with a request older than the timeout; their requests are dropped (the caller closes the connections). */
  expire(now: Micros): string[] {
    let out: string[] | null = null;
    for (const [peer, m] of this.byPeer) {
      // Send order: the first entry is the oldest.
      for (const sentAt of m.values()) {
        if (now >= sentAt + this.requestTimeout) (out ??= []).push(peer);
        break;
      }
    }
    if (out) for (const peer of out) this.byPeer.delete(peer);
    return out ?? [];
  }

  /** When the oldest request anywhere times out, or +Infinity. */
  nextTimeout(): Micros {
    let t = Number.POSITIVE_INFINITY;
    for (const m of this.byPeer.values()) {
      for (const sentAt of m.values()) {
        t = Math.min(t, sentAt + this.requestTimeout);
        break;
      }
    }
    return t;
  }
}
