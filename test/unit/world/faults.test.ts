import { describe, expect, it } from 'vitest';
import type { UntypedTraceEvent } from '../../../sim/core/trace';
import { ms, seconds } from '../../../sim/core/time';
import type { FaultEntry } from '../../../sim/world/nemesis';
import { World } from '../../../sim/world/world';
import { addTestProcess, events, scheduleFaults, type TestProcess } from './harness';

/**
 * Three brokers: b1 (zone z1, rack r1), b2 (z1, r2), b3 (z2, r3), tagged "broker", each running one process
 * (p1..p3). Latency is a fixed 1ms (no jitter), so arrival times are known. Start-up takes 1s.
 */
function cluster(entries: readonly FaultEntry[], opts: { silentFailureDetectionMs?: number; connectTimeoutMs?: number; lossDetectionMs?: number } = {}) {
  const world = new World({
    seed: 3,
    network: { sameZone: { baseMs: 1, jitterMs: 0 }, crossZone: { baseMs: 1, jitterMs: 0 }, ...opts },
    disk: { writebackDelayMs: null, fsyncLatencyMs: 2 },
  });
  const hosts: [string, string, string][] = [
    ['b1', 'z1', 'r1'],
    ['b2', 'z1', 'r2'],
    ['b3', 'z2', 'r3'],
  ];
  for (const [id, zone, rack] of hosts) world.addHost({ id, zone, rack, tags: ['broker'] });
  const procs = hosts.map(([id], i) => addTestProcess(world, id, `p${i + 1}`));
  scheduleFaults(world, entries);
  world.start();
  const p = (i: 1 | 2 | 3) => procs[i - 1]!() as TestProcess;
  return { world, p };
}

/** The fault, host, network and disk events, as [t, kind, node, a detail], in trace order. */
function story(world: World): [number, string, string, unknown][] {
  const detail: Record<string, string> = {
    'fault.start': 'hosts',
    'fault.end': 'hosts',
    'host.crash': 'processes',
    'host.power-off': 'processes',
    'host.up': 'processes',
    'host.restart': 'delayMs',
    'host.resume': 'queued',
    'disk.power-loss': 'files',
    'disk.write-failed': 'file',
    'net.disconnect': 'peer',
  };
  return events(world)
    .filter((e) => /^(fault|host|disk|net\.disconnect)/.test(e.kind))
    .filter((e) => !(e.kind === 'host.up' && e.t === 0))
    .map((e) => [e.t, e.kind, e.node, detail[e.kind] ? (e as UntypedTraceEvent)[detail[e.kind]!] : undefined]);
}

describe('fault kinds through a validated schedule', () => {
  it('crash: kill -9 of the host’s processes, restarted when the duration ends', () => {
    const { world, p } = cluster([{ at: 100, fault: 'crash', targets: ['b1'], duration: 400 }]);
    world.runUntil(ms(200));
    expect(world.host('b1').state).toBe('crashed');
    world.runUntil(seconds(3));
    expect(p(1).incarnation).toBe(1);
    expect(story(world)).toEqual([
      [ms(100), 'fault.start', 'nemesis', ['b1']],
      [ms(100), 'host.crash', 'b1', ['p1']],
      [ms(500), 'fault.end', 'nemesis', ['b1']],
      [ms(500), 'host.restart', 'b1', 1000],
      [ms(1500), 'host.up', 'b1', ['p1']],
    ]);
  });

  it('restart: brings a crashed host back (no duration: it cannot be undone)', () => {
    const { world, p } = cluster([
      { at: 100, fault: 'crash', targets: ['b2'] },
      { at: 300, fault: 'restart', targets: ['b2'] },
    ]);
    world.runUntil(seconds(3));
    expect(p(2).incarnation).toBe(1);
    expect(story(world)).toEqual([
      [ms(100), 'fault.start', 'nemesis', ['b2']],
      [ms(100), 'host.crash', 'b2', ['p2']],
      [ms(300), 'fault.start', 'nemesis', ['b2']],
      [ms(300), 'host.restart', 'b2', 1000],
      [ms(1300), 'host.up', 'b2', ['p2']],
    ]);
  });

  it('power-loss: the processes and the page cache are gone; only fsynced data comes back', () => {
    const { world, p } = cluster([{ at: 100, fault: 'power-loss', targets: ['b3'], duration: 200 }]);
    const d = world.host('b3').disk;
    d.append('log', 'synced', 10);
    d.fsync('log');
    world.runUntil(ms(50));
    d.append('log', 'cached', 10);
    world.runUntil(ms(150));
    expect(world.host('b3').state).toBe('powered-off');
    expect(d.read('log').map((c) => c.data)).toEqual(['synced']);
    world.runUntil(seconds(2));
    expect(p(3).incarnation).toBe(1);
    expect(story(world)).toEqual([
      [ms(100), 'fault.start', 'nemesis', ['b3']],
      [ms(100), 'host.power-off', 'b3', ['p3']],
      [ms(100), 'disk.power-loss', 'b3', [{ file: 'log', kept: 1, lost: 1, lostBytes: 10, torn: false }]],
      [ms(300), 'fault.end', 'nemesis', ['b3']],
      [ms(300), 'host.restart', 'b3', 1000],
      [ms(1300), 'host.up', 'b3', ['p3']],
    ]);
  });

  it('power-on: brings a powered-off host back', () => {
    const { world } = cluster([
      { at: 100, fault: 'power-loss', targets: ['b1'] },
      { at: 600, fault: 'power-on', targets: ['b1'] },
    ]);
    world.runUntil(ms(1000));
    expect(world.host('b1').state).toBe('starting');
    world.runUntil(seconds(2));
    expect(world.host('b1').state).toBe('up');
    expect(story(world).map(([t, k]) => [t, k])).toEqual([
      [ms(100), 'fault.start'],
      [ms(100), 'host.power-off'],
      [ms(100), 'disk.power-loss'],
      [ms(600), 'fault.start'],
      [ms(600), 'host.restart'],
      [ms(1600), 'host.up'],
    ]);
  });

  it('pause: nothing is handled until the pause ends; then the late timer and the queued message run', () => {
    const { world, p } = cluster([{ at: 100, fault: 'pause', targets: ['b1'], duration: 200 }]);
    const seen: [string, number][] = [];
    p(1).setTimer(ms(150), () => seen.push(['timer', world.now]));
    world.scheduler.at(ms(200), () => p(2).send('p1', 'hello'));
    world.runUntil(seconds(1));
    expect(seen).toEqual([['timer', ms(300)]]);
    expect(p(1).received).toEqual([{ t: ms(300), from: 'p2', msg: 'hello' }]);
    expect(story(world)).toEqual([
      [ms(100), 'fault.start', 'nemesis', ['b1']],
      [ms(100), 'host.pause', 'b1', undefined],
      [ms(300), 'fault.end', 'nemesis', ['b1']],
      [ms(300), 'host.resume', 'b1', 2],
    ]);
  });

  it('resume: ends a pause that had no duration', () => {
    const { world } = cluster([
      { at: 100, fault: 'pause', targets: ['zone:z1'] },
      { at: 400, fault: 'resume', targets: ['b1'] },
    ]);
    world.runUntil(ms(500));
    expect(world.host('b1').state).toBe('up');
    expect(world.host('b2').state).toBe('paused');
    expect(story(world).map(([t, k, n]) => [t, k, n])).toEqual([
      [ms(100), 'fault.start', 'nemesis'],
      [ms(100), 'host.pause', 'b1'],
      [ms(100), 'host.pause', 'b2'],
      [ms(400), 'fault.start', 'nemesis'],
      [ms(400), 'host.resume', 'b1'],
    ]);
  });

  it('partition: the groups cannot reach each other, both ways, until the duration ends', () => {
    const { world, p } = cluster([{ at: 100, fault: 'partition', groups: [['b1'], ['b2', 'b3']], duration: 500 }], {
      silentFailureDetectionMs: 50,
      connectTimeoutMs: 100,
    });
    world.scheduler.at(ms(50), () => p(1).send('p2', 'before'));
    world.scheduler.at(ms(200), () => p(1).send('p2', 'during'));
    world.scheduler.at(ms(700), () => p(1).send('p2', 'after'));
    world.runUntil(ms(300));
    expect(world.network.inspect().cuts).toEqual([
      ['b1', 'b2'],
      ['b1', 'b3'],
      ['b2', 'b1'],
      ['b3', 'b1'],
    ]);
    world.runUntil(seconds(1));
    expect(world.network.inspect().cuts).toEqual([]);
    // The cut leaves the connection up (TCP keeps retransmitting); "during" waits on it until TCP's user timeout
    // (50ms here) breaks it at both ends; "after" goes on a new connection.
    expect(p(2).received.map((r) => r.msg)).toEqual(['before', 'after']);
    const start = events(world).find((e) => e.kind === 'fault.start')!;
    expect([start.hosts, start.detail]).toEqual([['b1', 'b2', 'b3'], '[b1] | [b2,b3]']);
    expect(story(world)).toEqual([
      [ms(100), 'fault.start', 'nemesis', ['b1', 'b2', 'b3']],
      [ms(250), 'net.disconnect', 'p1', 'p2'],
      [ms(250), 'net.disconnect', 'p2', 'p1'],
      [ms(600), 'fault.end', 'nemesis', ['b1', 'b2', 'b3']],
    ]);
  });

  it('isolate: the host is cut from every other, the others still reach each other', () => {
    const { world } = cluster([{ at: 100, fault: 'isolate', targets: ['b2'], duration: 500 }]);
    world.runUntil(ms(200));
    const net = world.network;
    expect([net.isCut('b2', 'b1'), net.isCut('b1', 'b2'), net.isCut('b2', 'b3'), net.isCut('b3', 'b2')]).toEqual([true, true, true, true]);
    expect([net.isCut('b1', 'b3'), net.isCut('b3', 'b1')]).toEqual([false, false]);
    world.runUntil(ms(700));
    expect(net.inspect().cuts).toEqual([]);
    expect(story(world)).toEqual([
      [ms(100), 'fault.start', 'nemesis', ['b2']],
      [ms(600), 'fault.end', 'nemesis', ['b2']],
    ]);
  });

  it('one-way: one direction is cut, the other is not', () => {
    const { world } = cluster([{ at: 100, fault: 'one-way', from: ['b1'], to: ['rack:r2'], duration: 500 }]);
    world.runUntil(ms(200));
    expect(world.network.inspect().cuts).toEqual([['b1', 'b2']]);
    const start = events(world).find((e) => e.kind === 'fault.start')!;
    expect([start.hosts, start.detail]).toEqual([['b1', 'b2'], '[b1] -/-> [b2]']);
    world.runUntil(ms(700));
    expect(world.network.inspect().cuts).toEqual([]);
  });

  it('heal: removes every cut and link fault (or those touching its targets)', () => {
    const { world } = cluster([
      { at: 100, fault: 'partition', groups: [['b1'], ['b2'], ['b3']] },
      { at: 100, fault: 'latency', from: ['*'], to: ['*'], addMs: 10 },
      { at: 200, fault: 'heal', targets: ['b1'] },
      { at: 300, fault: 'heal' },
    ]);
    world.runUntil(ms(250));
    expect(world.network.inspect().cuts).toEqual([
      ['b2', 'b3'],
      ['b3', 'b2'],
    ]);
    expect(world.network.inspect().faults.map((f) => `${f.from}>${f.to}`)).toEqual(['b2>b3', 'b3>b2']);
    world.runUntil(ms(350));
    expect(world.network.inspect()).toEqual({ cuts: [], faults: [] });
    expect(story(world).map(([t, k]) => [t, k])).toEqual([
      [ms(100), 'fault.start'],
      [ms(100), 'fault.start'],
      [ms(200), 'fault.start'],
      [ms(300), 'fault.start'],
    ]);
  });

  it('latency: adds delay to one direction of a link for the duration', () => {
    const { world, p } = cluster([{ at: 100, fault: 'latency', from: ['b1'], to: ['b2'], addMs: 50, duration: 500 }]);
    world.scheduler.at(ms(200), () => {
      p(1).send('p2', 'slow');
      p(2).send('p1', 'fast');
    });
    world.scheduler.at(ms(700), () => p(1).send('p2', 'normal'));
    world.runUntil(seconds(1));
    expect(p(2).received.map((r) => [r.msg, r.t])).toEqual([
      ['slow', ms(251)],
      ['normal', ms(701)],
    ]);
    expect(p(1).received.map((r) => [r.msg, r.t])).toEqual([['fast', ms(201)]]);
    expect(events(world).find((e) => e.kind === 'fault.start')!.detail).toBe('+50ms ~0ms');
  });

  it('lossy: a message on the link is lost and its connection breaks, noticed after the detection delay', () => {
    const { world, p } = cluster([{ at: 100, fault: 'lossy', from: ['b1'], to: ['b2'], rate: 1, duration: 500 }], {
      lossDetectionMs: 300,
    });
    world.scheduler.at(ms(200), () => p(1).send('p2', 'lost'));
    world.runUntil(ms(300));
    expect(world.network.inspect().faults).toEqual([{ from: 'b1', to: 'b2', fault: { extraLatencyMs: 0, extraJitterMs: 0, lossRate: 1 } }]);
    world.runUntil(seconds(1));
    expect(p(2).received).toEqual([]);
    expect(story(world)).toEqual([
      [ms(100), 'fault.start', 'nemesis', ['b1', 'b2']],
      [ms(500), 'net.disconnect', 'p1', 'p2'],
      [ms(500), 'net.disconnect', 'p2', 'p1'],
      [ms(600), 'fault.end', 'nemesis', ['b1', 'b2']],
    ]);
    expect(world.network.inspect().faults).toEqual([]);
  });

  it('slow-disk: fsyncs take factor times longer for the duration', () => {
    const { world } = cluster([{ at: 100, fault: 'slow-disk', targets: ['b1'], factor: 5, duration: 500 }]);
    const d = world.host('b1').disk;
    world.runUntil(ms(200));
    expect(d.fsync('f')).toBe(ms(200) + ms(10));
    world.runUntil(ms(700));
    expect(d.fsync('f')).toBe(ms(700) + ms(2));
    expect(events(world).find((e) => e.kind === 'fault.start')!.detail).toBe('x5');
  });

  it('disk-full: appends fail for the duration', () => {
    const { world } = cluster([{ at: 100, fault: 'disk-full', targets: ['tag:broker'], duration: 500 }]);
    world.runUntil(ms(200));
    for (const id of ['b1', 'b2', 'b3']) expect(world.host(id).disk.append('f', 1, 1)).toBe('DISK_FULL');
    world.runUntil(ms(700));
    for (const id of ['b1', 'b2', 'b3']) expect(world.host(id).disk.append('f', 1, 1)).toBeNull();
    expect(story(world).map(([t, k, n]) => [t, k, n])).toEqual([
      [ms(100), 'fault.start', 'nemesis'],
      [ms(200), 'disk.write-failed', 'b1'],
      [ms(200), 'disk.write-failed', 'b2'],
      [ms(200), 'disk.write-failed', 'b3'],
      [ms(600), 'fault.end', 'nemesis'],
    ]);
  });
});

describe('correlated faults', () => {
  it('a zone selector hits all its hosts at the same instant', () => {
    const { world } = cluster([{ at: 100, fault: 'power-loss', targets: ['zone:z1'], duration: 1000 }]);
    world.runUntil(ms(200));
    expect(world.hosts().map((h) => h.state)).toEqual(['powered-off', 'powered-off', 'up']);
    const offs = events(world).filter((e) => e.kind === 'host.power-off');
    expect(offs.map((e) => [e.t, e.node])).toEqual([
      [ms(100), 'b1'],
      [ms(100), 'b2'],
    ]);
    expect(events(world).find((e) => e.kind === 'fault.start')!.hosts).toEqual(['b1', 'b2']);
  });

  it('a rack selector hits its hosts; several selectors combine without duplicates', () => {
    const { world } = cluster([{ at: 100, fault: 'crash', targets: ['rack:r3', 'rack:r1', 'b1'], duration: 1000 }]);
    world.runUntil(ms(200));
    expect(events(world).filter((e) => e.kind === 'host.crash').map((e) => [e.t, e.node])).toEqual([
      [ms(100), 'b1'],
      [ms(100), 'b3'],
    ]);
  });
});

describe('overlapping faults: each end undoes only its own effect', () => {
  it('a crash ending inside a power loss does not power the host on', () => {
    const { world } = cluster([
      { at: 0, fault: 'crash', targets: ['b1'], duration: 10_000 },
      { at: 5_000, fault: 'power-loss', targets: ['b1'], duration: 15_000 },
    ]);
    world.runUntil(seconds(15));
    expect(world.host('b1').state).toBe('powered-off');
    world.runUntil(seconds(20.5));
    expect(world.host('b1').state).toBe('starting');
    world.runUntil(seconds(21));
    expect(world.host('b1').state).toBe('up');
  });

  it('a power loss ending inside a crash powers the OS on but leaves the processes down', () => {
    const { world, p } = cluster([
      { at: 0, fault: 'crash', targets: ['b1'], duration: 20_000 },
      { at: 5_000, fault: 'power-loss', targets: ['b1'], duration: 3_000 },
    ]);
    world.runUntil(seconds(10));
    expect(world.host('b1').state).toBe('crashed');
    expect(world.host('b1').osUp).toBe(true);
    world.runUntil(seconds(21));
    expect(p(1).incarnation).toBe(1);
    expect(events(world).filter((e) => e.kind.startsWith('host.') && e.node === 'b1').map((e) => [e.t, e.kind])).toEqual([
      [0, 'host.up'],
      [0, 'host.crash'],
      [seconds(5), 'host.power-off'],
      [seconds(8), 'host.power-on'],
      [seconds(20), 'host.restart'],
      [seconds(21), 'host.up'],
    ]);
  });

  it('a crash without a duration is not undone by the end of another crash', () => {
    const { world } = cluster([
      { at: 0, fault: 'crash', targets: ['b1'] },
      { at: 1_000, fault: 'crash', targets: ['b1'], duration: 1_000 },
      { at: 5_000, fault: 'restart', targets: ['b1'] },
    ]);
    world.runUntil(seconds(4));
    expect(world.host('b1').state).toBe('crashed');
    world.runUntil(seconds(6));
    expect(world.host('b1').state).toBe('up');
  });

  it('a crash during the start-up after another crash keeps the host down for its own duration', () => {
    const { world } = cluster([
      { at: 0, fault: 'crash', targets: ['b1'], duration: 1_000 },
      { at: 1_500, fault: 'crash', targets: ['b1'], duration: 3_000 }, // during the 1s start-up
    ]);
    world.runUntil(seconds(4));
    expect(world.host('b1').state).toBe('crashed');
    world.runUntil(seconds(5.5));
    expect(world.host('b1').state).toBe('up');
  });

  it('a partition healed and cut again: the first one’s end does not lift the second', () => {
    const { world } = cluster([
      { at: 0, fault: 'partition', groups: [['b1'], ['b2']], duration: 30_000 },
      { at: 10_000, fault: 'heal' },
      { at: 15_000, fault: 'partition', groups: [['b1'], ['b2']], duration: 45_000 },
    ]);
    world.runUntil(seconds(12));
    expect(world.network.isCut('b1', 'b2')).toBe(false);
    world.runUntil(seconds(40));
    expect(world.network.isCut('b1', 'b2')).toBe(true);
    world.runUntil(seconds(61));
    expect(world.network.isCut('b1', 'b2')).toBe(false);
  });

  it('overlapping latencies add up, and each end removes only its own', () => {
    const { world } = cluster([
      { at: 0, fault: 'latency', from: ['b1'], to: ['b2'], addMs: 100, duration: 30_000 },
      { at: 10_000, fault: 'latency', from: ['b1'], to: ['b2'], addMs: 50, duration: 10_000 },
    ]);
    const extra = () => world.network.inspect().faults.map((f) => f.fault.extraLatencyMs);
    world.runUntil(seconds(5));
    expect(extra()).toEqual([100]);
    world.runUntil(seconds(15));
    expect(extra()).toEqual([150]);
    world.runUntil(seconds(25));
    expect(extra()).toEqual([100]);
    world.runUntil(seconds(35));
    expect(extra()).toEqual([]);
  });

  it('overlapping losses combine as independent losses', () => {
    const { world } = cluster([
      { at: 0, fault: 'lossy', from: ['b1'], to: ['b2'], rate: 0.5, duration: 30_000 },
      { at: 0, fault: 'lossy', from: ['b1'], to: ['b2'], rate: 0.5, duration: 10_000 },
    ]);
    world.runUntil(seconds(5));
    expect(world.network.inspect().faults[0]!.fault.lossRate).toBe(0.75);
    world.runUntil(seconds(15));
    expect(world.network.inspect().faults[0]!.fault.lossRate).toBe(0.5);
  });

  it('overlapping slow disks: the largest factor in force applies', () => {
    const { world } = cluster([
      { at: 0, fault: 'slow-disk', targets: ['b1'], factor: 10, duration: 30_000 },
      { at: 10_000, fault: 'slow-disk', targets: ['b1'], factor: 3, duration: 10_000 },
    ]);
    const d = world.host('b1').disk;
    world.runUntil(seconds(15));
    expect(d.slowFactor).toBe(10);
    world.runUntil(seconds(25));
    expect(d.slowFactor).toBe(10);
    world.runUntil(seconds(35));
    expect(d.slowFactor).toBe(1);
  });

  it('overlapping disk-full faults: the disk stays full until the last ends', () => {
    const { world } = cluster([
      { at: 0, fault: 'disk-full', targets: ['b1'], duration: 30_000 },
      { at: 10_000, fault: 'disk-full', targets: ['b1'], duration: 10_000 },
    ]);
    world.runUntil(seconds(25));
    expect(world.host('b1').disk.full).toBe(true);
    world.runUntil(seconds(35));
    expect(world.host('b1').disk.full).toBe(false);
  });

  it('a heal whose targets select no host heals nothing', () => {
    const { world } = cluster([
      { at: 0, fault: 'partition', groups: [['b1'], ['b2']] },
      { at: 100, fault: 'heal', targets: ['tag:nothing'] },
    ]);
    world.runUntil(ms(200));
    expect(world.network.isCut('b1', 'b2')).toBe(true);
  });
});
