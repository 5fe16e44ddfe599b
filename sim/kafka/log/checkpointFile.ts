import type { Micros } from '../../core/time';
import type { Disk } from '../../world/disk';
import { TMP_FILE_SUFFIX } from './logFileNames';
import type { TaskScheduler } from './taskScheduler';

/**
 * A small file replaced atomically: written to `<name>.tmp`, fsynced, then renamed over `<name>` once the fsync
 * completes, so a power loss leaves either the old or the new content, never an empty file.
 * [src: server-common/.../server/common/CheckpointFile.java `write`]
 */
export class CheckpointFile<T> {
  private generation = 0;

  constructor(
    private readonly disk: Disk,
    readonly path: string,
    private readonly tasks: TaskScheduler,
  ) {}

  /** Starts the write; returns when it will be durable (if the process and the power last that long). */
  write(data: T, bytes: number): Micros {
    const gen = ++this.generation;
    const tmp = this.path + TMP_FILE_SUFFIX;
    this.disk.rewrite(tmp, [{ data, bytes }]);
    const done = this.disk.fsync(tmp);
    // The disk marks the fsync durable in an event scheduled before this one at the same time, so the rename
    // moves a durable file. A newer write in flight renames its own content instead.
    this.tasks.schedule(done - this.tasks.now, () => {
      if (gen === this.generation) this.disk.rename(tmp, this.path);
    });
    return done;
  }

  /** The content of the last completed write, or null when there is none (or it did not survive). */
  read(): T | null {
    const c = this.disk.read<T>(this.path)[0];
    if (!c || c.torn === true) return null;
    return c.data;
  }

  /** Removes the file and any write in flight. */
  delete(): void {
    this.generation++;
    this.disk.delete(this.path);
    this.disk.delete(this.path + TMP_FILE_SUFFIX);
  }
}

/** Bytes of a "version, count, then one line per entry" text checkpoint, as Kafka writes them. */
export function checkpointBytes(lines: number, avgLineBytes: number): number {
  return 4 + lines * avgLineBytes;
}
