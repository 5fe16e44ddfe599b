import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import type { DiskConfig } from '../../../sim/world/disk';
import type { Host } from '../../../sim/world/host';
import type { World } from '../../../sim/world/world';
import { addTestProcess, makeWorld } from '../../unit/world/harness';

/*
 * A model of one disk, written from the rules in disk.ts's comments, not from its code:
 * - a write lands in the page cache (a process reads it at once);
 * - an fsync makes the chunks written to that file before it began durable, when it completes; fsyncs queue
 *   on the device; a truncation cuts what a pending fsync covers; a power loss voids pending fsyncs;
 * - the OS writes back a dirty chunk once it is `writebackDelayMs` old. Here the flusher wakes every
 *   microsecond, so "written back" means exactly "written at or before now - delay";
 * - a process crash changes nothing on disk; a power loss keeps the durable prefix of each file and, with
 *   torn writes on, half of the first lost chunk, flagged torn.
 */
interface MChunk {
  data: number;
  bytes: number;
  writtenAt: number;
  torn?: true;
}
interface MFile {
  chunks: MChunk[];
  /** Leading chunks made durable by completed fsyncs (or by surviving a power loss). */
  synced: number;
}
interface MSync {
  file: MFile;
  upTo: number;
  done: number;
}
interface Model {
  now: number;
  files: Map<string, MFile>;
  syncs: MSync[];
  busyUntil: number;
  slow: number;
  full: boolean;
  nextData: number;
  cfg: DiskConfig;
}
interface Real {
  world: World;
  host: Host;
}

const NAMES = ['a.log', 'b.log', 'c.log'];

function writtenBack(m: Model, f: MFile): number {
  const delay = m.cfg.writebackDelayMs;
  let n = 0;
  if (delay !== null) while (n < f.chunks.length && f.chunks[n]!.writtenAt <= m.now - ms(delay)) n++;
  return n;
}

function durable(m: Model, f: MFile): number {
  return Math.max(f.synced, writtenBack(m, f));
}

function checkSame(m: Model, r: Real): void {
  const disk = r.host.disk;
  expect(disk.list()).toEqual([...m.files.keys()].sort());
  for (const [name, f] of m.files) {
    const got = disk.read<number>(name).map((c) => ({ data: c.data, bytes: c.bytes, ...(c.torn ? { torn: true } : {}) }));
    expect(got, name).toEqual(f.chunks.map(({ writtenAt: _, ...c }) => c)); // the disk keeps no per-write time, only what writeback needs of it
    expect(disk.size(name)).toBe(f.chunks.reduce((s, c) => s + c.bytes, 0));
    expect(disk.durableChunks(name), `durable chunks of ${name}`).toBe(durable(m, f));
  }
  for (const fi of disk.inspect()) {
    const f = m.files.get(fi.name)!;
    const d = durable(m, f);
    expect(fi.durableChunks).toBe(d);
    expect(fi.durableBytes).toBe(f.chunks.slice(0, d).reduce((s, c) => s + c.bytes, 0));
  }
}

type Cmd = fc.Command<Model, Real>;

class Append implements Cmd {
  constructor(
    readonly file: number,
    readonly bytes: number,
  ) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const name = NAMES[this.file]!;
    const data = m.nextData++;
    const err = r.host.disk.append(name, data, this.bytes);
    if (m.full) {
      expect(err).toBe('DISK_FULL');
    } else {
      expect(err).toBeNull();
      let f = m.files.get(name);
      if (!f) m.files.set(name, (f = { chunks: [], synced: 0 }));
      f.chunks.push({ data, bytes: this.bytes, writtenAt: m.now });
    }
    checkSame(m, r);
  }
  toString = () => `append(${NAMES[this.file]}, ${this.bytes})`;
}

class Fsync implements Cmd {
  constructor(readonly file: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const name = NAMES[this.file]!;
    const latency = Math.max(1, Math.round(ms(m.cfg.fsyncLatencyMs) * m.slow));
    const done = Math.max(m.now, m.busyUntil) + latency;
    m.busyUntil = done;
    expect(r.host.disk.fsync(name)).toBe(done);
    const f = m.files.get(name);
    if (f) m.syncs.push({ file: f, upTo: f.chunks.length, done });
    checkSame(m, r);
  }
  toString = () => `fsync(${NAMES[this.file]})`;
}

class Truncate implements Cmd {
  constructor(
    readonly file: number,
    readonly count: number,
  ) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const name = NAMES[this.file]!;
    r.host.disk.truncate(name, this.count);
    const f = m.files.get(name);
    if (f && this.count < f.chunks.length) {
      f.chunks.length = this.count;
      f.synced = Math.min(f.synced, this.count);
      for (const s of m.syncs) if (s.file === f) s.upTo = Math.min(s.upTo, this.count);
    }
    checkSame(m, r);
  }
  toString = () => `truncate(${NAMES[this.file]}, ${this.count})`;
}

class Rewrite implements Cmd {
  constructor(
    readonly file: number,
    readonly sizes: number[],
  ) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const name = NAMES[this.file]!;
    const chunks = this.sizes.map((bytes) => ({ data: m.nextData++, bytes }));
    r.host.disk.rewrite(name, chunks);
    m.files.set(name, { chunks: chunks.map((c) => ({ ...c, writtenAt: m.now })), synced: 0 });
    checkSame(m, r);
  }
  toString = () => `rewrite(${NAMES[this.file]}, [${this.sizes.join(',')}])`;
}

class Rename implements Cmd {
  constructor(
    readonly from: number,
    readonly to: number,
  ) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const from = NAMES[this.from]!;
    const to = NAMES[this.to]!;
    r.host.disk.rename(from, to);
    const f = m.files.get(from);
    if (f) {
      m.files.delete(from);
      m.files.set(to, f); // a pending fsync follows the file (m.syncs refers to the object)
    }
    checkSame(m, r);
  }
  toString = () => `rename(${NAMES[this.from]} -> ${NAMES[this.to]})`;
}

class Delete implements Cmd {
  constructor(readonly file: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const name = NAMES[this.file]!;
    r.host.disk.delete(name);
    m.files.delete(name);
    checkSame(m, r);
  }
  toString = () => `delete(${NAMES[this.file]})`;
}

class Elapse implements Cmd {
  constructor(readonly us: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.now += this.us;
    r.world.runUntil(m.now);
    // Completed fsyncs (an event at exactly `now` has run too).
    for (const s of m.syncs.filter((x) => x.done <= m.now)) s.file.synced = Math.max(s.file.synced, Math.min(s.upTo, s.file.chunks.length));
    m.syncs = m.syncs.filter((x) => x.done > m.now);
    checkSame(m, r);
  }
  toString = () => `elapse(${this.us}us)`;
}

class Crash implements Cmd {
  check = () => true;
  run(m: Model, r: Real): void {
    r.host.crash();
    // kill -9: the OS and its page cache survive, so every write is still there and nothing became less durable.
    checkSame(m, r);
    r.host.restart(0);
  }
  toString = () => 'crash';
}

class PowerLoss implements Cmd {
  check = () => true;
  run(m: Model, r: Real): void {
    r.host.powerOff();
    for (const f of m.files.values()) {
      const keep = durable(m, f);
      const first = f.chunks[keep];
      f.chunks.length = keep;
      if (first && m.cfg.tornWriteProbability === 1) {
        f.chunks.push({ data: first.data, bytes: Math.max(1, Math.floor(first.bytes / 2)), writtenAt: first.writtenAt, torn: true });
      }
      f.synced = f.chunks.length;
    }
    m.syncs = []; // they never complete
    m.busyUntil = m.now;
    checkSame(m, r);
    r.host.restart(0);
  }
  toString = () => 'power-loss';
}

class SetSlow implements Cmd {
  constructor(readonly factor: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.slow = this.factor;
    r.host.disk.slowFactor = this.factor;
  }
  toString = () => `slow(x${this.factor})`;
}

class SetFull implements Cmd {
  constructor(readonly full: boolean) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.full = this.full;
    r.host.disk.full = this.full;
  }
  toString = () => `full(${this.full})`;
}

function commands(maxElapseUs: number): fc.Arbitrary<Iterable<Cmd>> {
  const file = fc.integer({ min: 0, max: NAMES.length - 1 });
  return fc.commands(
    [
      fc.tuple(file, fc.integer({ min: 1, max: 4096 })).map(([f, b]) => new Append(f, b)),
      fc.tuple(file, fc.integer({ min: 1, max: 4096 })).map(([f, b]) => new Append(f, b)),
      file.map((f) => new Fsync(f)),
      fc.tuple(file, fc.integer({ min: 0, max: 8 })).map(([f, c]) => new Truncate(f, c)),
      fc.tuple(file, fc.array(fc.integer({ min: 1, max: 512 }), { maxLength: 3 })).map(([f, s]) => new Rewrite(f, s)),
      fc.tuple(file, file).map(([a, b]) => new Rename(a, b)),
      file.map((f) => new Delete(f)),
      fc.integer({ min: 0, max: maxElapseUs }).map((us) => new Elapse(us)),
      fc.integer({ min: 0, max: maxElapseUs }).map((us) => new Elapse(us)),
      fc.constant(new Crash()),
      fc.constant(new PowerLoss()),
      fc.constantFrom(1, 3).map((k) => new SetSlow(k)),
      fc.boolean().map((b) => new SetFull(b)),
    ],
    { size: '+1' },
  );
}

function setup(cfg: DiskConfig, seed: number): { model: Model; real: Real } {
  const world = makeWorld({ seed, hosts: ['h1'], disk: cfg });
  addTestProcess(world, 'h1', 'p');
  world.start();
  const model: Model = { now: 0, files: new Map(), syncs: [], busyUntil: 0, slow: 1, full: false, nextData: 0, cfg };
  return { model, real: { world, host: world.host('h1') } };
}

describe('disk: page cache, fsync, writeback and power loss against a model', () => {
  const exactWriteback = (delayMs: number | null, torn: 0 | 1): DiskConfig => ({
    fsyncLatencyMs: 2,
    writebackDelayMs: delayMs,
    writebackIntervalMs: 0.001, // the flusher wakes every microsecond: written back = older than the delay
    tornWriteProbability: torn,
  });

  it('with no writeback: a power loss keeps exactly what completed fsyncs covered', () => {
    fc.assert(
      fc.property(fc.integer(), commands(5_000), (seed, cmds) => {
        const { model, real } = setup(exactWriteback(null, 0), seed);
        fc.modelRun(() => ({ model, real }), cmds);
      }),
      { numRuns: 200 },
    );
  });

  it('with writeback after 30ms: a power loss also keeps what the OS wrote back', () => {
    fc.assert(
      fc.property(fc.integer(), commands(20_000), (seed, cmds) => {
        const { model, real } = setup(exactWriteback(30, 0), seed);
        fc.modelRun(() => ({ model, real }), cmds);
      }),
      { numRuns: 200 },
    );
  });

  it('with torn writes: the first lost write survives in part, flagged torn', () => {
    fc.assert(
      fc.property(fc.integer(), commands(20_000), (seed, cmds) => {
        const { model, real } = setup(exactWriteback(30, 1), seed);
        fc.modelRun(() => ({ model, real }), cmds);
      }),
      { numRuns: 150 },
    );
  });
});

describe('disk: writeback with a real flusher interval', () => {
  // The flusher wakes every 5s at a phase drawn from the disk's stream; a dirty page is written back once it is
  // 30s old. Whatever the phase: a write at least 35s old has been written back; one younger than 30s has not.
  it('keeps every write older than delay + interval and none younger than the delay (unless fsynced)', () => {
    const cfg: DiskConfig = { fsyncLatencyMs: 2, writebackDelayMs: 30_000, writebackIntervalMs: 5_000, tornWriteProbability: 0 };
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20_000_000 }), fc.boolean()), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 60_000_000 }),
        (seed, steps, tail) => {
          const { real } = setup(cfg, seed);
          const disk = real.host.disk;
          const written: { at: number; synced: boolean }[] = [];
          let now = 0;
          let syncedPrefix = 0;
          for (const [dt, sync] of steps) {
            now += dt;
            real.world.runUntil(now);
            disk.append('f', written.length, 100);
            written.push({ at: now, synced: false });
            if (sync) {
              disk.fsync('f');
              syncedPrefix = written.length;
            }
          }
          // Let every fsync complete (2ms each), then more time pass before the power fails.
          now += ms(2) * steps.length + tail;
          real.world.runUntil(now);
          const mustKeep = Math.max(syncedPrefix, written.filter((w) => w.at <= now - ms(35_000)).length);
          const mayKeep = Math.max(syncedPrefix, written.filter((w) => w.at <= now - ms(30_000)).length);
          const before = disk.durableChunks('f');
          real.host.powerOff();
          const kept = disk.read<number>('f');
          expect(kept.length).toBe(before);
          expect(kept.length).toBeGreaterThanOrEqual(mustKeep);
          expect(kept.length).toBeLessThanOrEqual(mayKeep);
          // What survives is a prefix, in order.
          expect(kept.map((c) => c.data)).toEqual([...Array(kept.length).keys()]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('disk: an fsync covers what was written before it began', () => {
  it('whatever is truncated and appended while it runs', () => {
    const cfg: DiskConfig = { fsyncLatencyMs: 2, writebackDelayMs: null, writebackIntervalMs: 5_000, tornWriteProbability: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.oneof(fc.integer({ min: 0, max: 6 }).map((n) => ({ truncate: n })), fc.constant({ append: true })), { maxLength: 8 }),
        fc.boolean(),
        (before, during, powerFails) => {
          const { real } = setup(cfg, 1);
          const disk = real.host.disk;
          let next = 0;
          for (let i = 0; i < before; i++) disk.append('f', next++, 10);
          const done = disk.fsync('f');
          // The chunks the fsync covers: the ones present when it began that no truncation has removed since.
          let covered = before;
          for (const op of during) {
            if ('truncate' in op) {
              covered = Math.min(covered, op.truncate);
              disk.truncate('f', op.truncate);
            } else {
              disk.append('f', next++, 10);
            }
          }
          real.world.runUntil(done);
          expect(disk.durableChunks('f')).toBe(covered);
          if (powerFails) {
            real.host.powerOff();
            expect(disk.read('f').length).toBe(covered);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
