import { describe, expect, it } from 'vitest';
import { ms, seconds } from '../../../sim/core/time';
import { addTestProcess, eventsOf, makeWorld, scheduleFaults } from './harness';

describe('host: stop (SIGTERM)', () => {
  it('each process shuts down on its own time; the host is stopping, then stopped; sockets close at the exit', () => {
    const world = makeWorld({ hosts: ['h1', 'h2'] });
    const p = addTestProcess(world, 'h1', 'p', {
      stop(self) {
        self.setTimer(ms(300), () => self.exit('clean shutdown'));
      },
    });
    const peer = addTestProcess(world, 'h2', 'peer');
    world.start();
    world.runUntil(ms(10));
    p()!.send('peer', 'hello');
    world.runUntil(ms(100));
    const h = world.host('h1');
    h.stop();
    expect(h.state).toBe('stopping');
    world.runUntil(ms(399));
    expect(p()).toBeDefined();
    world.runUntil(ms(400));
    expect(p()).toBeUndefined();
    expect(h.state).toBe('stopped');
    // The peer hears of the exit one network hop later (a FIN), not after a timeout.
    world.runUntil(ms(410));
    const heard = peer()!.disconnects;
    expect(heard.map((d) => d.peer)).toEqual(['p']);
    expect(heard[0]!.t).toBeGreaterThan(ms(400));
    expect(heard[0]!.t).toBeLessThan(ms(405));
    expect(eventsOf(world, 'host.stop', 'process.exit').map((e) => [e.kind, e.t, 'reason' in e ? e.reason : null])).toEqual([
      ['host.stop', ms(100), null],
      ['process.exit', ms(400), 'clean shutdown'],
    ]);
  });

  it('a process without a shutdown hook exits at once', () => {
    const world = makeWorld({ hosts: ['h1'] });
    const p = addTestProcess(world, 'h1', 'p');
    world.start();
    world.host('h1').stop();
    expect(p()).toBeUndefined();
    expect(eventsOf(world, 'process.exit').map((e) => e.reason)).toEqual(['SIGTERM']);
  });

  it('a restart asked for while the processes shut down waits for the last exit (systemctl restart)', () => {
    const world = makeWorld({ hosts: ['h1'] });
    const p = addTestProcess(world, 'h1', 'p', {
      stop(self) {
        self.setTimer(ms(500), () => self.exit('clean shutdown'));
      },
    });
    world.start();
    const h = world.host('h1');
    h.stop();
    h.restart(100);
    expect(h.state).toBe('stopping');
    world.runUntil(ms(550));
    expect(h.state).toBe('starting');
    world.runUntil(ms(600));
    expect(h.state).toBe('up');
    expect(p()!.incarnation).toBe(1);
  });

  it('on a paused host the signal waits for the resume; a crash during the shutdown kills at once', () => {
    const world = makeWorld({ hosts: ['h1'] });
    const stops: number[] = [];
    const p = addTestProcess(world, 'h1', 'p', {
      stop(self) {
        stops.push(self.now);
        self.setTimer(seconds(10), () => self.exit('clean shutdown'));
      },
    });
    world.start();
    const h = world.host('h1');
    h.pause();
    h.stop();
    world.runUntil(ms(200));
    expect(stops).toEqual([]);
    h.resume();
    expect(stops).toEqual([ms(200)]);
    h.crash();
    expect(p()).toBeUndefined();
    expect(h.state).toBe('crashed');
  });

  it('the stop verb with a duration: SIGTERM, then the processes start again after it', () => {
    const world = makeWorld({ hosts: ['h1'] });
    const p = addTestProcess(world, 'h1', 'p', {
      stop(self) {
        self.setTimer(ms(50), () => self.exit('clean shutdown'));
      },
    });
    world.start();
    scheduleFaults(world, [{ at: 100, fault: 'stop', targets: ['h1'], duration: '2s' }]);
    world.runUntil(ms(200));
    expect(world.host('h1').state).toBe('stopped');
    world.runUntil(seconds(4));
    expect(world.host('h1').state).toBe('up');
    expect(p()!.incarnation).toBe(1);
    expect(eventsOf(world, 'fault.start', 'host.stop', 'process.exit', 'fault.end', 'host.restart').map((e) => [e.kind, e.t])).toEqual([
      ['fault.start', ms(100)],
      ['host.stop', ms(100)],
      ['process.exit', ms(150)],
      ['fault.end', ms(2100)],
      ['host.restart', ms(2100)],
    ]);
  });
});
