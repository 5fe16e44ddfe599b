import { describe, expect, it } from 'vitest';
import { ms, seconds } from '../../../sim/core/time';
import { addTestProcess, eventsOf, makeWorld } from './harness';

describe('host: crash, power loss and restart', () => {
  it('kill -9: the processes die with their timers; the page cache survives; the restart recovers from it', () => {
    const world = makeWorld({ hosts: ['h1'], disk: { writebackDelayMs: null } });
    const fired: string[] = [];
    const recovered: number[][] = [];
    const p = addTestProcess(world, 'h1', 'p', {
      start(self) {
        recovered.push(self.disk.read<number>('log').map((c) => c.data));
        self.disk.append('log', self.incarnation, 10); // never fsynced
        self.setTimer(ms(500), () => fired.push(`timer of #${self.incarnation}`));
      },
    });
    world.start();
    const h = world.host('h1');
    world.runUntil(ms(100));
    h.crash();
    expect(h.state).toBe('crashed');
    expect(p()).toBeUndefined();
    h.restart(200);
    expect(h.state).toBe('starting');
    world.runUntil(ms(299));
    expect(p()).toBeUndefined();
    world.runUntil(ms(300));
    expect(h.state).toBe('up');
    expect(p()!.incarnation).toBe(1);
    world.runUntil(seconds(2));
    // #0's timer (due at 500ms) died with it; #1's (due at 800ms) fired.
    expect(fired).toEqual(['timer of #1']);
    expect(recovered).toEqual([[], [0]]);
    expect(eventsOf(world, 'host.crash', 'host.restart', 'host.up').map((e) => [e.kind, e.t])).toEqual([
      ['host.up', 0],
      ['host.crash', ms(100)],
      ['host.restart', ms(100)],
      ['host.up', ms(300)],
    ]);
  });

  it('power loss: the page cache is gone, only what was fsynced comes back', () => {
    const world = makeWorld({ hosts: ['h1'], disk: { writebackDelayMs: null } });
    const recovered: number[][] = [];
    addTestProcess(world, 'h1', 'p', {
      start(self) {
        recovered.push(self.disk.read<number>('log').map((c) => c.data));
        if (self.incarnation > 0) return;
        self.disk.append('log', 1, 10);
        self.disk.fsync('log');
        self.setTimer(ms(10), () => self.disk.append('log', 2, 10));
      },
    });
    world.start();
    const h = world.host('h1');
    world.runUntil(ms(50));
    h.powerOff();
    expect(h.state).toBe('powered-off');
    expect(h.osUp).toBe(false);
    h.restart();
    world.runUntil(seconds(2));
    expect(recovered).toEqual([[], [1]]);
    const loss = eventsOf(world, 'disk.power-loss')[0]!;
    expect(loss.files).toEqual([{ file: 'log', kept: 1, lost: 1, lostBytes: 10, torn: false }]);
  });

  it('restart when only some processes died: the dead one comes back as a new incarnation, the others run on', () => {
    const world = makeWorld({ hosts: ['h1'] });
    const ticks: number[] = [];
    const a = addTestProcess(world, 'h1', 'a');
    const b = addTestProcess(world, 'h1', 'b', {
      start(self) {
        const tick = () => {
          ticks.push(self.now);
          self.setTimer(ms(100), tick);
        };
        self.setTimer(ms(100), tick);
      },
    });
    world.start();
    const h = world.host('h1');
    const b0 = b()!;
    world.runUntil(ms(50));
    a()!.exit('controlled shutdown');
    expect(h.state).toBe('up');
    h.restart(300);
    world.runUntil(ms(400));
    expect(a()!.incarnation).toBe(1);
    expect(b()).toBe(b0); // untouched, same incarnation
    expect(b0.incarnation).toBe(0);
    // b kept running through the restart window.
    expect(ticks).toEqual([100, 200, 300, 400].map(ms));
    expect(eventsOf(world, 'process.exit', 'host.up').map((e) => [e.kind, e.t, e.kind === 'host.up' ? e.processes : e.process])).toEqual([
      ['host.up', 0, ['a', 'b']],
      ['process.exit', ms(50), 'a'],
      ['host.up', ms(350), ['a']],
    ]);
    // With everything running, a restart is a no-op.
    h.restart();
    expect(h.state).toBe('up');
  });

  it('a crash while the processes are still starting kills the start: nothing comes up until the next restart', () => {
    const world = makeWorld({ hosts: ['h1'] });
    const p = addTestProcess(world, 'h1', 'p');
    world.start();
    const h = world.host('h1');
    h.crash();
    h.restart(1000);
    world.runUntil(ms(500));
    h.crash();
    expect(h.state).toBe('crashed');
    world.runUntil(seconds(5));
    expect(p()).toBeUndefined();
    h.restart(100);
    world.runUntil(seconds(6));
    expect(p()!.incarnation).toBe(1);
  });

  it('a power loss during the start-up voids it too', () => {
    const world = makeWorld({ hosts: ['h1'] });
    const p = addTestProcess(world, 'h1', 'p');
    world.start();
    const h = world.host('h1');
    h.crash();
    h.restart(1000);
    world.runUntil(ms(500));
    h.powerOff();
    world.runUntil(seconds(5));
    expect(p()).toBeUndefined();
    expect(h.state).toBe('powered-off');
  });

  it('power on without the processes (a crash still holds them): the OS answers, so peers are refused at once', () => {
    const world = makeWorld({ hosts: ['h1', 'h2'] });
    const a = addTestProcess(world, 'h1', 'a');
    addTestProcess(world, 'h2', 'b');
    world.start();
    const h2 = world.host('h2');
    h2.powerOff();
    h2.powerOn();
    expect(h2.state).toBe('crashed');
    expect(h2.osUp).toBe(true);
    a()!.send('b', 'x');
    world.runUntil(ms(10));
    expect(a()!.disconnects.length).toBe(1);
    expect(eventsOf(world, 'host.power-on').map((e) => e.node)).toEqual(['h2']);
  });

  it('a message in flight to a process that crashes is not delivered to its successor', () => {
    const world = makeWorld({ hosts: ['h1', 'h2'], network: { sameZone: { baseMs: 5, jitterMs: 0 } } });
    const a = addTestProcess(world, 'h1', 'a');
    const b = addTestProcess(world, 'h2', 'b');
    world.start();
    a()!.send('b', 'for b#0');
    const h2 = world.host('h2');
    h2.crash();
    h2.restart(0);
    world.runUntil(ms(100));
    expect(b()!.incarnation).toBe(1);
    expect(b()!.received).toEqual([]);
  });

  it('a process added after the start starts at once if its host is up, and not on a crashed host', () => {
    const world = makeWorld({ hosts: ['h1', 'h2'] });
    addTestProcess(world, 'h1', 'a');
    addTestProcess(world, 'h2', 'b');
    const before = addTestProcess(world, 'h1', 'early');
    expect(before()).toBeUndefined(); // nothing runs before world.start()
    world.start();
    expect(before()!.started).toBe(true);
    const late = addTestProcess(world, 'h1', 'late');
    expect(late()!.started).toBe(true);
    world.host('h2').crash();
    const onCrashed = addTestProcess(world, 'h2', 'other');
    expect(onCrashed()).toBeUndefined();
    world.host('h2').restart(0);
    world.runUntil(ms(1));
    expect(onCrashed()!.started).toBe(true);
  });

  it('a pause ends with a crash: the queue is dropped and nothing of it reaches the next incarnation', () => {
    const world = makeWorld({ hosts: ['h1', 'h2'], network: { sameZone: { baseMs: 1, jitterMs: 0 } } });
    const a = addTestProcess(world, 'h1', 'a');
    const fired: number[] = [];
    const b = addTestProcess(world, 'h2', 'b', { start: (self) => self.setTimer(ms(5), () => fired.push(self.incarnation)) });
    world.start();
    const h2 = world.host('h2');
    h2.pause();
    expect(h2.state).toBe('paused');
    a()!.send('b', 'queued');
    world.runUntil(ms(10));
    h2.crash();
    expect(h2.paused).toBe(false);
    h2.restart(0);
    world.runUntil(ms(12));
    h2.resume(); // nothing to resume
    world.runUntil(ms(100));
    expect(b()!.received).toEqual([]);
    expect(fired).toEqual([1]);
  });

  it('a clean exit: the process’s peers hear at once', () => {
    const world = makeWorld({ hosts: ['h1', 'h2'] });
    const a = addTestProcess(world, 'h1', 'a');
    const b = addTestProcess(world, 'h2', 'b');
    world.start();
    a()!.send('b', 'hi');
    world.runUntil(ms(10));
    b()!.exit('done');
    world.runUntil(ms(20));
    expect(a()!.disconnects.length).toBe(1);
    expect(world.host('h2').processes()).toEqual([]);
  });
});
