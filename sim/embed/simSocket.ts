import { EventEmitter } from 'node:events';
import type { ClientSocket } from '../kafka/wire/clientSocket';

/**
 * What a kafkajs connection needs of a net.Socket, over a simulated connection: `write` puts the bytes on the
 * simulated network at the current simulated time; 'data' brings the broker's answers; a connection the broker
 * or the network closed ends with 'end' (it was open) or 'error' (it never opened), as a TCP socket reports a FIN
 * and a refused or unreachable connect.
 */
export class SimSocket extends EventEmitter {
  private socket: ClientSocket | null = null;
  private ended = false;
  /** Bytes written before the connection opened (kafkajs waits for connect, but a socket must not lose them). */
  private early: Uint8Array[] = [];

  constructor(
    readonly remoteAddress: string,
    readonly remotePort: number,
  ) {
    super();
  }

  /** The simulated connection behind this socket (set by the factory). */
  attach(socket: ClientSocket): void {
    this.socket = socket;
  }

  /** The broker accepted the connection. */
  opened(): void {
    for (const b of this.early) this.socket?.write(b);
    this.early = [];
    this.emit('connect');
  }

  received(bytes: Uint8Array): void {
    if (this.ended) return;
    this.emit('data', Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  /** The connection is gone; `wasOpen` tells a closed connection from one that never opened. */
  closed(wasOpen: boolean, cause: string): void {
    if (this.ended) return;
    this.ended = true;
    if (wasOpen) this.emit('end');
    else {
      const e = Object.assign(new Error(`connect ECONNREFUSED ${this.remoteAddress}:${this.remotePort} (${cause})`), { code: 'ECONNREFUSED' });
      this.emit('error', e);
    }
    this.emit('close', !wasOpen);
  }

  write(data: Uint8Array | string, encoding?: BufferEncoding | (() => void), cb?: () => void): boolean {
    const bytes = typeof data === 'string' ? Buffer.from(data, typeof encoding === 'string' ? encoding : 'utf8') : data;
    if (!this.ended && this.socket) {
      if (this.socket.isOpen) this.socket.write(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice());
      else this.early.push(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice());
    }
    const done = typeof encoding === 'function' ? encoding : cb;
    if (done) done();
    return true;
  }

  end(): this {
    if (!this.ended) {
      this.ended = true;
      this.socket?.end();
    }
    return this;
  }

  destroy(): this {
    return this.end();
  }

  // What kafkajs and net.Socket users call that means nothing here.
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this { // determinism-ok: net.Socket's idle-timeout setter, a no-op here
    return this;
  }
  unref(): this {
    return this;
  }
  ref(): this {
    return this;
  }
}
