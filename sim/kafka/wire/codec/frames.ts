/**
 * Size-delimited frames on a byte stream: an int32 size, then that many bytes [NetworkReceive.java]. The reader
 * takes chunks as they arrive and hands out whole frames. A size below zero, or above `socket.request.max.bytes`
 * (104857600 by default), is refused before anything is buffered, as Kafka's InvalidReceiveException is.
 */

/** socket.request.max.bytes [SocketServerConfigs.SOCKET_REQUEST_MAX_BYTES_DEFAULT]. */
export const SOCKET_REQUEST_MAX_BYTES = 104_857_600;

export type FrameResult = { readonly frames: Uint8Array[]; readonly error: null } | { readonly frames: Uint8Array[]; readonly error: string };

export class FrameReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private failed = false;

  constructor(private readonly maxFrameBytes = SOCKET_REQUEST_MAX_BYTES) {}

  /** Bytes waiting for the rest of their frame. */
  get pending(): number {
    return this.buffered;
  }

  /** Adds a chunk; returns the frames it completed, and an error once the stream is unusable. */
  push(chunk: Uint8Array): FrameResult {
    const frames: Uint8Array[] = [];
    if (this.failed) return { frames, error: 'the stream already failed' };
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    while (this.buffered >= 4) {
      const head = this.peek(4);
      const size = ((head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!) | 0;
      if (size < 0) return this.fail(frames, `Invalid receive (size = ${size})`);
      if (size > this.maxFrameBytes) return this.fail(frames, `Invalid receive (size = ${size} larger than ${this.maxFrameBytes})`);
      if (this.buffered < 4 + size) break;
      this.take(4);
      frames.push(this.take(size));
    }
    return { frames, error: null };
  }

  private fail(frames: Uint8Array[], error: string): FrameResult {
    this.failed = true;
    this.chunks = [];
    this.buffered = 0;
    return { frames, error };
  }

  private peek(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (first.length >= n) return first.subarray(0, n);
    const out = new Uint8Array(n);
    let o = 0;
    for (const c of this.chunks) {
      const k = Math.min(c.length, n - o);
      out.set(c.subarray(0, k), o);
      o += k;
      if (o === n) break;
    }
    return out;
  }

  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      const c = this.chunks[0]!;
      const k = Math.min(c.length, n - o);
      out.set(c.subarray(0, k), o);
      o += k;
      if (k === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(k);
    }
    this.buffered -= n;
    return out;
  }
}

/** A frame: the int32 size, then the bytes. */
export function frame(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setInt32(0, body.length);
  out.set(body, 4);
  return out;
}
