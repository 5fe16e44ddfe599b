import type { Micros } from '../../../core/time';
import { ms } from '../../../core/time';
import type { ExponentialBackoff } from '../backoff';

interface NodeConnectionState {
  connected: boolean;
  /** Consecutive disconnects without a successful exchange in between. */
  failedAttempts: number;
  lastDisconnectUs: Micros;
  reconnectBackoffUs: Micros;
}

/**
 * The producer's view of its connections, one per broker [clients/.../clients/ClusterConnectionStates.java]:
 * after a connection breaks, the node is "blacked out" for reconnect.backoff.ms, growing exponentially (with
 * jitter) up to reconnect.backoff.max.ms while it keeps failing; any answer from the node resets that. The
 * simulated network opens connections implicitly, so "connected" here means "has answered since the last break".
 */
export class ClusterConnectionStates {
  private readonly nodes = new Map<number, NodeConnectionState>();

  constructor(private readonly reconnectBackoff: ExponentialBackoff) {}

  private state(node: number): NodeConnectionState {
    let s = this.nodes.get(node);
    if (!s) this.nodes.set(node, (s = { connected: false, failedAttempts: 0, lastDisconnectUs: -1, reconnectBackoffUs: 0 }));
    return s;
  }

  /** The node answered: the connection works [ClusterConnectionStates.ready / resetReconnectBackoff]. */
  connected(node: number): void {
    const s = this.state(node);
    s.connected = true;
    s.failedAttempts = 0;
    s.reconnectBackoffUs = 0;
  }

  /** The connection broke (or could not be made); several failures reported at one instant count once. */
  disconnected(node: number, nowUs: Micros): void {
    const s = this.state(node);
    if (!s.connected && s.lastDisconnectUs === nowUs) return;
    s.connected = false;
    s.lastDisconnectUs = nowUs;
    s.reconnectBackoffUs = ms(this.reconnectBackoff.backoff(s.failedAttempts));
    s.failedAttempts++;
  }

  isConnected(node: number): boolean {
    return this.nodes.get(node)?.connected ?? false;
  }

  /** Still inside the reconnect backoff after a break [ClusterConnectionStates.isBlackedOut]. */
  isBlackedOut(node: number, nowUs: Micros): boolean {
    return this.connectionDelay(node, nowUs) > 0;
  }

  /** How long until a new connection may be tried (0: now) [ClusterConnectionStates.connectionDelay]. */
  connectionDelay(node: number, nowUs: Micros): Micros {
    const s = this.nodes.get(node);
    if (!s || s.connected || s.lastDisconnectUs < 0) return 0;
    return Math.max(0, s.lastDisconnectUs + s.reconnectBackoffUs - nowUs);
  }
}
