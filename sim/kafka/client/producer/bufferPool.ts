/**
 * The producer's memory for unsent records, buffer.memory bytes [clients/.../producer/internals/BufferPool.java].
 * A new batch takes max(batch.size, record) bytes; a batch gives them back once it is acknowledged or failed.
 * When there is no room, send() waits (up to max.block.ms) and, while anyone waits, every partition counts as
 * ready so the sender frees memory as fast as it can (RecordAccumulator `exhausted`). Kafka's pooling of
 * batch.size buffers changes nothing observable here, so only the byte count is kept.
 */
export class BufferPool {
  private used = 0;
  /** Sends waiting for memory [BufferPool.queued]. */
  queued = 0;

  constructor(readonly totalMemory: number) {}

  get availableMemory(): number {
    return this.totalMemory - this.used;
  }

  /** Takes `size` bytes if they are free. */
  tryAllocate(size: number): boolean {
    if (size > this.availableMemory) return false;
    this.used += size;
    return true;
  }

  deallocate(size: number): void {
    this.used -= size;
    if (this.used < 0) throw new Error(`BufferPool: more memory returned than taken (${this.used})`);
  }
}
