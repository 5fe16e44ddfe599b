import type { ProcessContext } from '../../world/host';
import { Process } from '../../world/process';
import { WireData, isWireData } from './wireData';

/** What a client socket tells its owner (the in-process bridge, the TCP relay, a test). */
export interface ClientSocketEvents {
  /** The broker accepted the connection. */
  connect(): void;
  data(bytes: Uint8Array): void;
  /** The connection is gone: the broker closed it, its host died, a link failed, or it never opened. */
  close(cause: string): void;
}

/**
 * One TCP connection of a real client to a broker, as an actor on the client's simulated host: what the client
 * writes crosses the simulated network to the broker (so cuts, latency, loss and crashes act on it as on any
 * connection), and what the broker writes back is handed to the owner. Opening sends an empty chunk; the broker
 * answers it with an empty chunk when it accepts (a SYN and its SYN-ACK), or the network reports the failure.
 *
 * A socket never outlives its incarnation: after its host restarts it stays closed, as a process's sockets do.
 */
export class ClientSocket extends Process {
  private state: 'connecting' | 'open' | 'closed' = 'connecting';

  constructor(
    ctx: ProcessContext,
    id: string,
    readonly broker: string,
    private readonly events: ClientSocketEvents,
  ) {
    super(id, ctx);
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  override onStart(): void {
    if (this.incarnation > 0) {
      this.state = 'closed';
      return;
    }
    this.send(this.broker, new WireData(new Uint8Array(0)), 0);
  }

  onMessage(from: string, msg: unknown): void {
    if (from !== this.broker || !isWireData(msg) || this.state === 'closed') return;
    if (this.state === 'connecting') {
      this.state = 'open';
      this.events.connect();
    }
    if (msg.data.length > 0) this.events.data(msg.data);
  }

  override onDisconnect(peer: string): void {
    if (peer !== this.broker) return;
    this.closed(this.state === 'connecting' ? 'connection refused or unreachable' : 'closed by the broker or the network');
  }

  override kill(): void {
    super.kill();
    this.closed('the client host went down');
  }

  /** Bytes the client wrote. */
  write(bytes: Uint8Array): void {
    if (this.state !== 'open' || !this.alive) return;
    this.send(this.broker, new WireData(bytes), bytes.length);
  }

  /** The client closes the connection (a FIN reaches the broker). */
  end(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.disconnect(this.broker);
  }

  private closed(cause: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.events.close(cause);
  }
}
