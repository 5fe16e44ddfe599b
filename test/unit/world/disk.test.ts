import { describe, expect, it } from 'vitest';
import { ms, seconds } from '../../../sim/core/time';
import type { DiskConfig } from '../../../sim/world/disk';
import { eventsOf, makeWorld } from './harness';

function disk(cfg: Partial<DiskConfig> = {}, seed = 1) {
  const world = makeWorld({ seed, hosts: ['h1'], disk: cfg });
  const h = world.host('h1');
  return { world, h, d: h.disk };
}

describe('disk', () => {
  it('a write is readable at once (page cache) and durable only after its fsync completes', () => {
    const { world, d } = disk({ fsyncLatencyMs: 2, writebackDelayMs: null });
    d.append('f', 'a', 100);
    expect(d.read('f').map((c) => c.data)).toEqual(['a']);
    expect(d.size('f')).toBe(100);
    expect(d.durableChunks('f')).toBe(0);
    expect(d.fsync('f')).toBe(ms(2));
    world.runUntil(ms(2) - 1);
    expect(d.durableChunks('f')).toBe(0);
    world.runUntil(ms(2));
    expect(d.durableChunks('f')).toBe(1);
  });

  it("a file's live data is what the process reads: appends, truncation, a rename and a power loss show in it", () => {
    const { h, d } = disk({ fsyncLatencyMs: 2, writebackDelayMs: null });
    const live = d.liveData<string>('f');
    expect(live).toEqual([]); // no such file yet: an empty view, not the file's
    d.create('f');
    const view = d.liveData<string>('f');
    for (const x of ['a', 'b', 'c']) d.append('f', x, 10);
    expect(view).toEqual(['a', 'b', 'c']);
    d.truncate('f', 2);
    expect(view).toEqual(['a', 'b']);
    d.rename('f', 'g');
    expect(d.liveData('g')).toBe(view);
    h.powerOff(); // nothing was fsynced
    expect(view).toEqual([]);
    expect(d.read('g')).toEqual([]);
  });

  it('fsyncs queue on the device, and a slow disk multiplies their latency', () => {
    const { d } = disk({ fsyncLatencyMs: 2 });
    d.append('f', 1, 1);
    expect(d.fsync('f')).toBe(ms(2));
    expect(d.fsync('g')).toBe(ms(4)); // even of a missing file: the device is busy
    d.slowFactor = 10;
    expect(d.fsync('f')).toBe(ms(4) + ms(20));
  });

  it('the OS writes a dirty page back once it is writebackDelayMs old, at the flusher’s next wake-up', () => {
    const { world, d } = disk({ writebackDelayMs: 30_000, writebackIntervalMs: 5_000 });
    d.append('f', 1, 1);
    world.runUntil(seconds(30) - 1);
    expect(d.durableChunks('f')).toBe(0);
    world.runUntil(seconds(35));
    expect(d.durableChunks('f')).toBe(1);
  });

  it('with writeback "never" (null) only fsync makes data durable', () => {
    const { world, d } = disk({ writebackDelayMs: null });
    d.append('f', 1, 1);
    world.runUntil(seconds(3600));
    expect(d.durableChunks('f')).toBe(0);
  });

  it('a full disk fails appends with DISK_FULL, writes nothing and says so in the trace', () => {
    const { world, d } = disk();
    d.full = true;
    expect(d.append('f', 1, 1)).toBe('DISK_FULL');
    expect(d.exists('f')).toBe(false);
    expect(eventsOf(world, 'disk.write-failed').map((e) => [e.node, e.file, e.error])).toEqual([['h1', 'f', 'DISK_FULL']]);
    d.full = false;
    expect(d.append('f', 1, 1)).toBeNull();
  });

  it('truncation lowers what is durable; a later append is not durable until synced', () => {
    const { world, d } = disk({ writebackDelayMs: null });
    for (let i = 0; i < 5; i++) d.append('f', i, 10);
    d.fsync('f');
    world.runUntil(ms(10));
    d.truncate('f', 2);
    expect(d.durableChunks('f')).toBe(2);
    expect(d.size('f')).toBe(20);
    d.append('f', 9, 10);
    expect(d.durableChunks('f')).toBe(2);
    world.host('h1').powerOff();
    expect(d.read('f').map((c) => c.data)).toEqual([0, 1]);
  });

  it('an fsync in flight does not make durable what was appended after a truncation', () => {
    const { world, d } = disk({ writebackDelayMs: null });
    for (let i = 0; i < 4; i++) d.append('f', i, 10);
    const done = d.fsync('f');
    d.truncate('f', 1);
    d.append('f', 'new', 10);
    d.append('f', 'new', 10);
    world.runUntil(done);
    expect(d.durableChunks('f')).toBe(1);
  });

  it('a rewrite replaces the content, not durable until synced (a power loss leaves the file empty)', () => {
    const { world, d } = disk({ writebackDelayMs: null });
    d.append('f', 'old', 10);
    d.fsync('f');
    world.runUntil(ms(10));
    d.rewrite('f', [{ data: 'new', bytes: 5 }]);
    expect(d.read('f').map((c) => c.data)).toEqual(['new']);
    world.host('h1').powerOff();
    expect(d.exists('f')).toBe(true);
    expect(d.read('f')).toEqual([]);
  });

  it('a rename moves the file with its durability and any fsync in flight; inspect() names it by its new name', () => {
    const { world, d } = disk({ writebackDelayMs: null });
    d.append('x.tmp', 'v', 10);
    const done = d.fsync('x.tmp');
    d.rename('x.tmp', 'x');
    world.runUntil(done);
    expect(d.list()).toEqual(['x']);
    expect(d.durableChunks('x')).toBe(1);
    expect(d.inspect()).toEqual([{ name: 'x', chunks: 1, bytes: 10, durableChunks: 1, durableBytes: 10 }]);
    world.host('h1').powerOff();
    expect(d.read('x').map((c) => c.data)).toEqual(['v']);
  });

  it('after a power loss the first lost write may survive torn: half its bytes, flagged so recovery drops it', () => {
    const { world, d } = disk({ writebackDelayMs: null, tornWriteProbability: 1 });
    d.append('f', 'kept', 100);
    d.fsync('f');
    world.runUntil(ms(10));
    d.append('f', 'torn', 100);
    d.append('f', 'gone', 100);
    world.host('h1').powerOff();
    const chunks = d.read('f');
    expect(chunks.map((c) => [c.data, c.bytes, c.torn ?? false])).toEqual([
      ['kept', 100, false],
      ['torn', 50, true],
    ]);
    expect(eventsOf(world, 'disk.power-loss')[0]!.files).toEqual([{ file: 'f', kept: 1, lost: 2, lostBytes: 200, torn: true }]);
  });

  it('a file whose chunks say their own size keeps the same sizes: appends, a write of another size, truncation, a torn write', () => {
    const { world, d } = disk({ writebackDelayMs: null, tornWriteProbability: 1 });
    const sizeOf = (c: unknown) => (c as { size: number }).size;
    d.create('f', sizeOf);
    d.append('f', { size: 100 }, 100);
    d.append('f', { size: 70 }, 70);
    d.append('f', { size: 10 }, 40); // not what the data says: the file keeps sizes from here on
    d.append('f', { size: 30 }, 30);
    expect(d.read('f').map((c) => c.bytes)).toEqual([100, 70, 40, 30]);
    d.truncate('f', 3);
    expect(d.size('f')).toBe(210);
    d.create('g', sizeOf);
    d.append('g', { size: 100 }, 100);
    d.fsync('g');
    world.runUntil(ms(10));
    d.append('g', { size: 80 }, 80);
    d.append('g', { size: 60 }, 60);
    expect(d.size('g')).toBe(240);
    world.host('h1').powerOff();
    expect(d.read('g').map((c) => [c.bytes, c.torn ?? false])).toEqual([
      [100, false],
      [40, true],
    ]);
    expect(d.size('g')).toBe(140);
    expect(eventsOf(world, 'disk.power-loss')[0]!.files).toContainEqual({ file: 'g', kept: 1, lost: 2, lostBytes: 140, torn: true });
  });

  it('lists, creates and deletes files; a pending fsync of a deleted file changes nothing', () => {
    const { world, d } = disk();
    d.create('b/1');
    d.create('a/2');
    d.append('a/1', 1, 1);
    expect(d.list()).toEqual(['a/1', 'a/2', 'b/1']);
    expect(d.list('a/')).toEqual(['a/1', 'a/2']);
    d.fsync('a/1');
    d.delete('a/1');
    world.runUntil(ms(10));
    expect(d.exists('a/1')).toBe(false);
    expect(d.read('a/1')).toEqual([]);
    expect(d.durableChunks('a/1')).toBe(0);
  });

  it('lists a directory from its own entries: nested directories, renames, deletes, and prefixes that are not directories', () => {
    const { d } = disk();
    for (const f of ['logs/t-1/2.log', 'logs/t-1/0.log', 'logs/t-10/0.log', 'logs/t-1/sub/x', 'logs/cp', 'top']) d.create(f);
    d.append('logs/t-2/0.log', 'a', 1);
    d.rewrite('logs/t-2/1.log', []);
    expect(d.list('logs/t-1/')).toEqual(['logs/t-1/0.log', 'logs/t-1/2.log', 'logs/t-1/sub/x']);
    expect(d.list('logs/')).toEqual(['logs/cp', 'logs/t-1/0.log', 'logs/t-1/2.log', 'logs/t-1/sub/x', 'logs/t-10/0.log', 'logs/t-2/0.log', 'logs/t-2/1.log']);
    // A prefix that is not a directory still matches by its characters.
    expect(d.list('logs/t-1')).toEqual(['logs/t-1/0.log', 'logs/t-1/2.log', 'logs/t-1/sub/x', 'logs/t-10/0.log']);
    d.rename('logs/t-1/2.log', 'logs/t-2/2.log');
    d.delete('logs/t-1/0.log');
    d.delete('logs/t-1/0.log');
    expect(d.list('logs/t-1/')).toEqual(['logs/t-1/sub/x']);
    expect(d.list('logs/t-2/')).toEqual(['logs/t-2/0.log', 'logs/t-2/1.log', 'logs/t-2/2.log']);
    expect(d.list('nowhere/')).toEqual([]);
    expect(d.list()).toEqual(['logs/cp', 'logs/t-1/sub/x', 'logs/t-10/0.log', 'logs/t-2/0.log', 'logs/t-2/1.log', 'logs/t-2/2.log', 'top']);
  });
});
