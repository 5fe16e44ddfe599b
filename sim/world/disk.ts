import type { Random } from '../core/random';
import type { Scheduler } from '../core/scheduler';
import { ms, type Micros } from '../core/time';
import type { Trace } from '../core/trace';
import { bool, defineKinds, list, num, obj, oneOf, str, type KindsOf } from '../core/traceSchema';

/** What a write into a file is: our own object (a record batch, a metadata record) and its size. */
export interface Chunk<T = unknown> {
  readonly data: T;
  readonly bytes: number;
  /** When it entered the page cache. */
  readonly writtenAt: Micros;
  /** A power loss cut this write short: its checksum no longer matches. Recovery must drop it. */
  readonly torn?: true;
}

export const DISK_ERRORS = ['DISK_FULL'] as const;
export type DiskError = (typeof DISK_ERRORS)[number];

/** What happens to disks. */
export const DISK_KINDS = defineKinds({
  /** Power failed: per file, the writes that were on disk (`kept`) and those only in page cache (`lost`); `torn` when one survived cut short. */
  'disk.power-loss': { files: list(obj({ file: str, kept: num, lost: num, lostBytes: num, torn: bool })) },
  /** A write failed (the disk is full). */
  'disk.write-failed': { file: str, error: oneOf(...DISK_ERRORS) },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof DISK_KINDS> {}
}

export interface DiskConfig {
  /** How long an fsync takes on a healthy disk. */
  readonly fsyncLatencyMs: number;
  /** The OS writes a dirty page back once it is this old (Linux dirty_expire_centisecs); null = never. */
  readonly writebackDelayMs: number | null;
  /** How often the OS flusher wakes (Linux dirty_writeback_centisecs). */
  readonly writebackIntervalMs: number;
  /** After a power loss, the first unwritten-back write may survive torn (with this probability). */
  readonly tornWriteProbability: number;
}

export const DEFAULT_DISK_CONFIG: DiskConfig = {
  fsyncLatencyMs: 2,
  writebackDelayMs: 30_000,
  writebackIntervalMs: 5_000,
  tornWriteProbability: 0,
};

/** One file: its writes in order, and how many of the first ones are known durable. */
class SimFile {
  chunks: Chunk[] = [];
  bytes = 0;
  /** The first `durableCount` chunks reached the platter through fsync. */
  durableCount = 0;
  /** fsyncs under way: how many leading chunks each will make durable (a truncation lowers it). */
  pendingSyncs: { upTo: number }[] = [];
  constructor(public name: string) {}
}

/** What a file holds now, for tests and the UI. */
export interface FileInspection {
  readonly name: string;
  readonly chunks: number;
  readonly bytes: number;
  readonly durableChunks: number;
  readonly durableBytes: number;
}

/**
 * A host's disk. Writes land in the page cache at once. An fsync makes everything written to a file so
 * far durable after a latency; the OS also writes dirty pages back by itself once they are old enough,
 * so an un-fsynced write survives a power loss only by luck of timing. A process crash keeps the page
 * cache (the OS survives); a power loss keeps only what is durable.
 *
 * Truncation, deletion and renames are metadata operations; they are treated as durable at once
 * (a journalling file system commits them within seconds, and nothing here depends on that window).
 */
export class Disk {
  private readonly files = new Map<string, SimFile>();
  private powerEpoch = 0;
  private busyUntil: Micros = 0;
  /** Slow-disk fault: every fsync takes this many times longer. */
  slowFactor = 1;
  /** Disk-full fault: appends fail with DISK_FULL. */
  full = false;
  private readonly writebackPhase: Micros;

  constructor(
    readonly hostId: string,
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly random: Random,
    readonly config: DiskConfig = DEFAULT_DISK_CONFIG,
  ) {
    this.writebackPhase = Math.floor(random.next() * ms(config.writebackIntervalMs));
  }

  exists(name: string): boolean {
    return this.files.has(name);
  }

  /** Names of the files starting with `prefix`, sorted. */
  list(prefix = ''): string[] {
    const out: string[] = [];
    for (const name of this.files.keys()) if (name.startsWith(prefix)) out.push(name);
    return out.sort();
  }

  /** Creates an empty file if it does not exist. */
  create(name: string): void {
    if (!this.files.has(name)) this.files.set(name, new SimFile(name));
  }

  /** Appends to the page cache. Fails (and says so) when the disk is full. */
  append<T>(name: string, data: T, bytes: number): DiskError | null {
    if (this.full) {
      this.trace.emit('disk.write-failed', this.hostId, { file: name, error: 'DISK_FULL' });
      return 'DISK_FULL';
    }
    let f = this.files.get(name);
    if (!f) {
      f = new SimFile(name);
      this.files.set(name, f);
    }
    f.chunks.push({ data, bytes, writtenAt: this.scheduler.now });
    f.bytes += bytes;
    return null;
  }

  /** Everything written to the file, as the process sees it (page cache included). */
  read<T = unknown>(name: string): readonly Chunk<T>[] {
    return (this.files.get(name)?.chunks ?? []) as Chunk<T>[];
  }

  /** Bytes in the file (page cache included). */
  size(name: string): number {
    return this.files.get(name)?.bytes ?? 0;
  }

  /** Keeps the first `count` chunks. */
  truncate(name: string, count: number): void {
    const f = this.files.get(name);
    if (!f || count >= f.chunks.length) return;
    const keep = Math.max(0, count);
    for (let i = keep; i < f.chunks.length; i++) f.bytes -= f.chunks[i]!.bytes;
    f.chunks.length = keep;
    if (f.durableCount > keep) f.durableCount = keep;
    // An fsync under way covers only what was written before it began: chunks appended after this cut are new.
    for (const p of f.pendingSyncs) if (p.upTo > keep) p.upTo = keep;
  }

  /** Replaces a file's whole content (a rewrite by the log cleaner, a checkpoint file). Not durable until synced. */
  rewrite<T>(name: string, chunks: readonly { data: T; bytes: number }[]): void {
    const f = new SimFile(name);
    const now = this.scheduler.now;
    for (const c of chunks) {
      f.chunks.push({ data: c.data, bytes: c.bytes, writtenAt: now });
      f.bytes += c.bytes;
    }
    this.files.set(name, f);
  }

  delete(name: string): void {
    this.files.delete(name);
  }

  rename(from: string, to: string): void {
    const f = this.files.get(from);
    if (!f) return;
    this.files.delete(from);
    f.name = to; // inspect() and the power-loss report name the file as it is called now
    this.files.set(to, f);
  }

  /**
   * Starts an fsync of `name`: everything written to it so far becomes durable when it completes,
   * unless the power fails first. Returns the completion time (the caller sets its own timer for it,
   * so a crashed process never hears back). fsyncs queue on the device one after another.
   */
  fsync(name: string): Micros {
    const now = this.scheduler.now;
    const start = Math.max(now, this.busyUntil);
    const done = start + Math.max(1, Math.round(ms(this.config.fsyncLatencyMs) * this.slowFactor));
    this.busyUntil = done;
    const f = this.files.get(name);
    if (f) {
      const pending = { upTo: f.chunks.length };
      f.pendingSyncs.push(pending);
      const epoch = this.powerEpoch;
      this.scheduler.at(
        done,
        () => {
          const i = f.pendingSyncs.indexOf(pending);
          if (i >= 0) f.pendingSyncs.splice(i, 1);
          // The fsync follows the file, not its name: a rename before it completes keeps its effect.
          if (this.powerEpoch !== epoch) return;
          f.durableCount = Math.max(f.durableCount, Math.min(pending.upTo, f.chunks.length));
        },
        undefined,
        `the fsync of ${name} on ${this.hostId}`,
      );
    }
    return done;
  }

  /** How many leading chunks of a file would survive a power loss right now. */
  durableChunks(name: string): number {
    const f = this.files.get(name);
    return f ? this.durablePrefix(f) : 0;
  }

  private durablePrefix(f: SimFile): number {
    const delay = this.config.writebackDelayMs;
    if (delay === null) return f.durableCount;
    // The OS flusher last woke at `tick`; it wrote back every page dirtied at least `delay` before.
    const interval = ms(this.config.writebackIntervalMs);
    const now = this.scheduler.now;
    const tick = now < this.writebackPhase ? -1 : this.writebackPhase + Math.floor((now - this.writebackPhase) / interval) * interval;
    const cutoff = tick - ms(delay);
    // Writes are in time order: binary search for the first one newer than the cutoff.
    const chunks = f.chunks;
    let lo = f.durableCount;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (chunks[mid]!.writtenAt <= cutoff) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The power went out: the page cache is gone, only durable data remains. With torn writes enabled, the
   * first lost write may survive in part (its checksum broken). Pending fsyncs never complete.
   */
  powerLoss(): void {
    this.powerEpoch++;
    this.busyUntil = this.scheduler.now;
    const report: { file: string; kept: number; lost: number; lostBytes: number; torn: boolean }[] = [];
    for (const f of [...this.files.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      f.pendingSyncs.length = 0;
      const keep = this.durablePrefix(f);
      const lost = f.chunks.length - keep;
      if (lost === 0) {
        f.durableCount = keep;
        continue;
      }
      let lostBytes = 0;
      for (let i = keep; i < f.chunks.length; i++) lostBytes += f.chunks[i]!.bytes;
      const first = f.chunks[keep]!;
      const torn = this.config.tornWriteProbability > 0 && this.random.chance(this.config.tornWriteProbability);
      f.chunks.length = keep;
      f.bytes -= lostBytes;
      if (torn) {
        const partial = Math.max(1, Math.floor(first.bytes / 2));
        f.chunks.push({ data: first.data, bytes: partial, writtenAt: first.writtenAt, torn: true });
        f.bytes += partial;
      }
      f.durableCount = f.chunks.length;
      report.push({ file: f.name, kept: keep, lost, lostBytes, torn });
    }
    this.trace.emit('disk.power-loss', this.hostId, { files: report });
  }

  inspect(): FileInspection[] {
    return [...this.files.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((f) => {
        const durableChunks = this.durablePrefix(f);
        let durableBytes = 0;
        for (let i = 0; i < durableChunks; i++) durableBytes += f.chunks[i]!.bytes;
        return { name: f.name, chunks: f.chunks.length, bytes: f.bytes, durableChunks, durableBytes };
      });
  }
}
