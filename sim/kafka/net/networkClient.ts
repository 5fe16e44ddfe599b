import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms } from '../../core/time';
import type { Process } from '../../world/process';
import type { KafkaError } from '../errors';
import { REQUEST_HEADER_BYTES } from '../protocol';

/** A response, or why none came: the connection broke (NETWORK_EXCEPTION) or the request timed out. */
export type Outcome<R> = { readonly ok: true; readonly response: R } | { readonly ok: false; readonly error: KafkaError };

interface Pending {
  readonly to: string;
  readonly onDone: (o: Outcome<any>) => void;
  timer: TimerId;
}

/**
 * The request side of a Kafka process's connections, as Kafka's NetworkClient: correlation ids, one
 * timeout per request (on expiry the connection is closed, as NetworkClient does, and the request fails
 * with REQUEST_TIMED_OUT), and on a disconnect every in-flight request to that node fails with
 * NETWORK_EXCEPTION — the caller cannot know whether the broker acted on it.
 */
export class NetworkClient {
  private nextCorrelationId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly inFlightPerNode = new Map<string, number>();

  constructor(private readonly owner: Process) {}

  /**
   * Sends `body` (without its correlation id) and calls `onDone` exactly once. With `expectResponse`
   * false (acks=0 produce) nothing is awaited and `onDone` is not called.
   *
   * `body` must be built for this one request and not touched again: it becomes the message itself, its
   * correlation id set on it (no copy per request: a spread over a dozen request shapes is megamorphic and
   * showed up on every path). A caller that sends the same body again (a retry) hands a copy each time, or the
   * retry would re-stamp the message still in flight. A busy request's literal may end with `correlationId: 0`:
   * it then has its final shape from creation (the id is stamped in place, the field stays last on the wire).
   */
  send<Q extends { type: string }, R>(
    to: string,
    body: Q,
    opts: { timeoutMs: number; bytes?: number; expectResponse?: boolean },
    onDone: (o: Outcome<R>) => void,
  ): number {
    const correlationId = this.nextCorrelationId++;
    const msg = body as Q & { correlationId: number };
    msg.correlationId = correlationId;
    this.owner.send(to, msg, REQUEST_HEADER_BYTES + (opts.bytes ?? 0));
    if (opts.expectResponse === false) return correlationId;
    const p: Pending = { to, onDone, timer: NO_TIMER };
    p.timer = this.owner.setTimer(ms(opts.timeoutMs), () => {
      if (!this.pending.has(correlationId)) return;
      // NetworkClient closes a connection whose request timed out, and every request in flight on it fails,
      // oldest first, as timed out [NetworkClient.handleTimedOutRequests -> processTimeoutDisconnection].
      this.owner.disconnect(to);
      this.failAll(to, 'REQUEST_TIMED_OUT');
    });
    this.pending.set(correlationId, p);
    this.inFlightPerNode.set(to, (this.inFlightPerNode.get(to) ?? 0) + 1);
    return correlationId;
  }

  /** Routes a response to its request; false when it is not a response to one of ours (or came too late). */
  handleResponse(from: string, msg: { correlationId?: number }): boolean {
    const id = msg.correlationId;
    if (id === undefined) return false;
    const p = this.pending.get(id);
    if (!p || p.to !== from) return false;
    this.owner.cancelTimer(p.timer);
    this.finish(id, { ok: true, response: msg });
    return true;
  }

  /** The connection to `peer` broke: every request in flight to it fails. */
  onDisconnect(peer: string): void {
    this.failAll(peer, 'NETWORK_EXCEPTION');
  }

  inFlight(to: string): number {
    return this.inFlightPerNode.get(to) ?? 0;
  }

  private failAll(peer: string, error: KafkaError): void {
    // In the order they were sent (correlation ids grow; the map keeps insertion order).
    const ids: number[] = [];
    for (const [id, p] of this.pending) if (p.to === peer) ids.push(id);
    for (const id of ids) {
      const p = this.pending.get(id)!;
      this.owner.cancelTimer(p.timer);
      this.finish(id, { ok: false, error });
    }
  }

  private finish(id: number, o: Outcome<any>): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    const n = (this.inFlightPerNode.get(p.to) ?? 1) - 1;
    if (n > 0) this.inFlightPerNode.set(p.to, n);
    else this.inFlightPerNode.delete(p.to);
    p.onDone(o);
  }
}
