import { Actor } from '../core/actor';
import type { Disk } from './disk';
import type { Host, ProcessContext } from './host';

/**
 * An actor that runs as a process on a host: it has the host's disk, can close a connection, and can
 * exit on its own. Kafka's controllers, brokers and clients are processes.
 */
export abstract class Process extends Actor {
  declare readonly ctx: ProcessContext;

  constructor(id: string, ctx: ProcessContext) {
    super(id, ctx);
  }

  get host(): Host {
    return this.ctx.host;
  }

  get disk(): Disk {
    return this.ctx.disk;
  }

  get incarnation(): number {
    return this.ctx.incarnation;
  }

  /** Closes the connection to `peer` (after a request timeout, as Kafka's NetworkClient does). */
  disconnect(peer: string): void {
    if (this.alive) this.ctx.network.close(this.id, peer);
  }

  /** Ends this process by itself (a clean shutdown, or a fatal error): its sockets close and peers hear at once. */
  exit(reason: string): void {
    this.host.processExited(this, reason);
  }

  /**
   * SIGTERM: the host asks this process to stop. A process without a shutdown hook exits at once; Kafka's
   * brokers and controllers override this with their graceful shutdown and call `exit` when it is done.
   */
  onStop(): void {
    this.exit('SIGTERM');
  }
}
