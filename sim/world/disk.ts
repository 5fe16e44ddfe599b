import type { Random } from '../core/random';
import type { Scheduler } from '../core/scheduler';
import { ms, type Micros } from '../core/time';
import type { Trace } from '../core/trace';
import { widened } from '../core/typedArrays';
import { bool, defineKinds, list, num, obj, oneOf, str, type KindsOf } from '../core/traceSchema';

/** What a write into a file is: our own object (a record batch, a metadata record) and its size. */
export interface Chunk<T = unknown> {
  readonly data: T;
  readonly bytes: number;
  /** A power loss cut this write short: its checksum no longer matches. Recovery must drop it. */
  readonly torn?: true;
}

export const DISK_ERRORS = ['DISK_FULL'] as const;
export type DiskError = (typeof DISK_ERRORS)[number];

const EMPTY: readonly unknown[] = Object.freeze([]);
const EMPTY_SIZES = new Int32Array(0);

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

/**
 * One file: its writes in order, as columns (a log holds a chunk per record batch, millions in a big run, so no
 * object per chunk), and how many of the first ones are known durable.
 *
 * No time is kept per write: all the OS flusher asks of a write's time is the first flusher wake-up that writes
 * it back (its "writeback tick", `Disk.writebackTick`), and writes come in time order, so the file keeps one
 * (tick, first chunk) pair per run of writes sharing a tick, and drops the runs once they are written back.
 */
class SimFile {
  /** Chunk i: its data (a plain array: the live view a log segment reads). */
  data: unknown[] = [];
  /**
   * Chunk i's size, or null while every chunk's size is what `sizeOf` says of its data (a log's batches know
   * their size: no column for them until a write differs, e.g. a torn one).
   */
  sizes: Int32Array | null = EMPTY_SIZES;
  sizeOf: ((data: unknown) => number) | null = null;
  /**
   * Runs of chunks not yet written back, as pairs [tick, first chunk, tick, first chunk, ...]: a run starts at its
   * first chunk and is written back at flusher tick `tick` (ascending). One array: thousands of files hold a few.
   */
  runs: number[] = [];
  /** The indexes of chunks power losses cut short (each the last one at the time), ascending; usually none. */
  torn: number[] | null = null;
  bytes = 0;
  /** The first `durableCount` chunks reached the platter through fsync. */
  durableCount = 0;
  /** fsyncs under way: how many leading chunks each will make durable (a truncation lowers it). */
  pendingSyncs: { upTo: number }[] = [];
  constructor(public name: string) {}

  get count(): number {
    return this.data.length;
  }

  /** Chunk i's size in bytes. */
  sizeAt(i: number): number {
    return this.sizes === null ? this.sizeOf!(this.data[i]) : this.sizes[i]!;
  }

  /** The sizes of the chunks so far as a column, with room for one more. */
  private sizeColumn(): Int32Array {
    const n = this.data.length;
    const sizes = new Int32Array(Math.max(8, n * 2));
    for (let i = 0; i < n; i++) sizes[i] = this.sizeOf!(this.data[i]);
    return sizes;
  }

  /** From now on (the file is empty), chunks whose size is `sizeOf` their data keep no size of their own. */
  sizedBy(sizeOf: (data: unknown) => number): void {
    if (this.data.length > 0 || this.sizeOf !== null) return;
    this.sizeOf = sizeOf;
    this.sizes = null;
  }

  /** The writeback tick of the last run, NaN when none. */
  get lastTick(): number {
    return this.runs.length === 0 ? NaN : this.runs[this.runs.length - 2]!;
  }

  /** Appends a chunk the flusher writes back at its tick `tick`. */
  push(data: unknown, bytes: number, tick: number): void {
    const i = this.data.length;
    if (this.sizes === null && this.sizeOf!(data) !== bytes) this.sizes = this.sizeColumn();
    const sizes = this.sizes;
    if (sizes !== null) {
      if (i === sizes.length) this.sizes = widened(sizes, Math.max(8, sizes.length * 2)); // typed: the collector never walks it
      this.sizes![i] = bytes;
    }
    this.data.push(data);
    this.bytes += bytes;
    if (this.lastTick !== tick) this.runs.push(tick, i);
  }

  /**
   * The first chunk at or after `durableCount` not yet written back once the flusher's tick `tick` has run. Runs
   * written back by then are dropped and counted durable (a write, once written back, stays so).
   */
  writtenBackUpTo(tick: number): number {
    const runs = this.runs;
    let j = 0;
    while (j < runs.length && runs[j]! <= tick) j += 2;
    if (j > 0) {
      this.durableCount = Math.max(this.durableCount, j < runs.length ? runs[j + 1]! : this.count);
      runs.splice(0, j);
    }
    return this.durableCount;
  }

  /** Keeps the first `keep` chunks. */
  cut(keep: number): void {
    for (let i = keep; i < this.data.length; i++) this.bytes -= this.sizeAt(i);
    this.data.length = keep;
    let runs = this.runs.length;
    while (runs > 0 && this.runs[runs - 1]! >= keep) runs -= 2;
    this.runs.length = runs;
    if (this.torn !== null) {
      while (this.torn.length > 0 && this.torn[this.torn.length - 1]! >= keep) this.torn.pop();
      if (this.torn.length === 0) this.torn = null;
    }
  }

  chunk(i: number): Chunk {
    const c = { data: this.data[i], bytes: this.sizeAt(i) };
    return this.torn?.includes(i) ? { ...c, torn: true } : c;
  }
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
  /**
   * Directory ("a/b/", "" for the top) -> the files directly in it and its sub-directories, so listing one
   * partition's directory costs its own files, not the disk's (a broker with thousands of partitions opens each
   * log by listing its directory: a scan of the whole disk each time made booting quadratic).
   */
  private readonly dirs = new Map<string, { readonly files: Set<string>; readonly subdirs: Set<string> }>();
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

  /** Names of the files starting with `prefix`, sorted. A directory's prefix ("a/b/") reads only that directory's tree. */
  list(prefix = ''): string[] {
    const out: string[] = [];
    if (prefix.endsWith('/') || prefix === '') {
      const walk = (dir: string): void => {
        const d = this.dirs.get(dir);
        if (!d) return;
        for (const name of d.files) out.push(name);
        for (const sub of d.subdirs) walk(sub);
      };
      walk(prefix);
    } else {
      for (const name of this.files.keys()) if (name.startsWith(prefix)) out.push(name);
    }
    return out.sort();
  }

  private put(name: string, f: SimFile): void {
    if (!this.files.has(name)) this.dirOf(name.slice(0, name.lastIndexOf('/') + 1)).files.add(name);
    this.files.set(name, f);
  }

  private remove(name: string): void {
    if (this.files.delete(name)) this.dirs.get(name.slice(0, name.lastIndexOf('/') + 1))?.files.delete(name);
  }

  /** The directory's entry, made (and linked into its parent's) on first use. */
  private dirOf(dir: string): { readonly files: Set<string>; readonly subdirs: Set<string> } {
    let d = this.dirs.get(dir);
    if (d) return d;
    d = { files: new Set(), subdirs: new Set() };
    this.dirs.set(dir, d);
    if (dir !== '') this.dirOf(dir.slice(0, dir.lastIndexOf('/', dir.length - 2) + 1)).subdirs.add(dir);
    return d;
  }

  /**
   * Creates an empty file if it does not exist. `sizeOf`: what a chunk's data says its size is (a log's record
   * batches): while it is empty, the file learns it and keeps no size per chunk whose write is that size.
   */
  create(name: string, sizeOf?: (data: unknown) => number): void {
    let f = this.files.get(name);
    if (!f) this.put(name, (f = new SimFile(name)));
    if (sizeOf) f.sizedBy(sizeOf);
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
      this.put(name, f);
    }
    const tick = this.writebackTick(this.scheduler.now);
    if (tick !== f.lastTick) this.durablePrefix(f); // a new run: let go of those written back by now
    f.push(data, bytes, tick);
    return null;
  }

  /** Everything written to the file, as the process sees it (page cache included). Built on each call: for recovery and inspection. */
  read<T = unknown>(name: string): readonly Chunk<T>[] {
    const f = this.files.get(name);
    if (!f) return [];
    const out: Chunk<T>[] = [];
    for (let i = 0; i < f.count; i++) out.push(f.chunk(i) as Chunk<T>);
    return out;
  }

  /**
   * The data of every write in the file, as the process reads it through the page cache: the file's own array,
   * live (appends, truncations and power loss show in it; a rename keeps it). Empty for a file that does not exist.
   */
  liveData<T = unknown>(name: string): readonly T[] {
    return (this.files.get(name)?.data ?? EMPTY) as readonly T[];
  }

  /** How many writes the file holds. */
  chunkCount(name: string): number {
    return this.files.get(name)?.count ?? 0;
  }

  /** Bytes in the file (page cache included). */
  size(name: string): number {
    return this.files.get(name)?.bytes ?? 0;
  }

  /** Keeps the first `count` chunks. */
  truncate(name: string, count: number): void {
    const f = this.files.get(name);
    if (!f || count >= f.count) return;
    const keep = Math.max(0, count);
    f.cut(keep);
    if (f.durableCount > keep) f.durableCount = keep;
    // An fsync under way covers only what was written before it began: chunks appended after this cut are new.
    for (const p of f.pendingSyncs) if (p.upTo > keep) p.upTo = keep;
  }

  /** Replaces a file's whole content (a rewrite by the log cleaner, a checkpoint file). Not durable until synced. */
  rewrite<T>(name: string, chunks: readonly { data: T; bytes: number }[]): void {
    const f = new SimFile(name);
    const tick = this.writebackTick(this.scheduler.now);
    for (const c of chunks) f.push(c.data, c.bytes, tick);
    this.put(name, f);
  }

  delete(name: string): void {
    this.remove(name);
  }

  rename(from: string, to: string): void {
    const f = this.files.get(from);
    if (!f) return;
    this.remove(from);
    f.name = to; // inspect() and the power-loss report name the file as it is called now
    this.put(to, f);
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
      const pending = { upTo: f.count };
      f.pendingSyncs.push(pending);
      const epoch = this.powerEpoch;
      this.scheduler.at(
        done,
        () => {
          const i = f.pendingSyncs.indexOf(pending);
          if (i >= 0) f.pendingSyncs.splice(i, 1);
          // The fsync follows the file, not its name: a rename before it completes keeps its effect.
          if (this.powerEpoch !== epoch) return;
          f.durableCount = Math.max(f.durableCount, Math.min(pending.upTo, f.count));
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
    if (this.config.writebackDelayMs === null) return f.durableCount;
    // The OS flusher last woke at its tick k (none yet before its phase): every write whose tick is <= k is back.
    const now = this.scheduler.now;
    return f.writtenBackUpTo(now < this.writebackPhase ? -Infinity : Math.floor((now - this.writebackPhase) / ms(this.config.writebackIntervalMs)));
  }

  /**
   * The flusher wake-up that writes back a page dirtied at `at`: the least k whose wake-up, at phase + k * interval,
   * comes at least writeback.delay after `at` (Linux dirty_expire_centisecs, dirty_writeback_centisecs). Only this
   * of a write's time matters, so it is all a file keeps. Infinity when the OS never writes back.
   */
  private writebackTick(at: Micros): number {
    const delayMs = this.config.writebackDelayMs;
    if (delayMs === null) return Infinity;
    const interval = ms(this.config.writebackIntervalMs);
    const delay = ms(delayMs);
    if (!(interval > 0)) return Infinity; // no wake-ups at all
    const phase = this.writebackPhase;
    // The same arithmetic as the wake-up's own cutoff (phase + k * interval - delay), so the edges agree exactly.
    let k = Math.ceil((at + delay - phase) / interval);
    while (at > phase + k * interval - delay) k++;
    while (at <= phase + (k - 1) * interval - delay) k--;
    return k;
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
      const lost = f.count - keep;
      if (lost === 0) {
        f.durableCount = keep;
        continue;
      }
      let lostBytes = 0;
      for (let i = keep; i < f.count; i++) lostBytes += f.sizeAt(i);
      const firstData = f.data[keep];
      const firstBytes = f.sizeAt(keep);
      const torn = this.config.tornWriteProbability > 0 && this.random.chance(this.config.tornWriteProbability);
      f.cut(keep);
      if (torn) {
        f.push(firstData, Math.max(1, Math.floor(firstBytes / 2)), -Infinity); // durable: it survived
        (f.torn ??= []).push(keep);
      }
      f.durableCount = f.count;
      f.runs.length = 0;
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
        for (let i = 0; i < durableChunks; i++) durableBytes += f.sizeAt(i);
        return { name: f.name, chunks: f.count, bytes: f.bytes, durableChunks, durableBytes };
      });
  }
}
