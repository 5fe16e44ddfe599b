import { describe, expect, it } from 'vitest';
import { Scheduler, SchedulingError } from '../../../sim/core/scheduler';
import { ms, seconds } from '../../../sim/core/time';

describe('Scheduler', () => {
  it('runs events by time, and events at one time first-in first-out', () => {
    const s = new Scheduler(2);
    const log: string[] = [];
    const note = (x: string) => log.push(`${s.now}:${x}`);
    s.at(30, note, 'c');
    s.at(10, note, 'a1');
    s.at(20, note, 'b');
    s.at(10, note, 'a2');
    s.at(10, note, 'a3');
    s.runUntilIdle();
    expect(log).toEqual(['10:a1', '10:a2', '10:a3', '20:b', '30:c']);
    expect(s.eventsRun).toBe(5);
  });

  it('keeps FIFO for events scheduled at the current time from inside an event', () => {
    const s = new Scheduler();
    const log: string[] = [];
    s.at(5, () => {
      s.after(0, () => log.push('x'));
      s.after(0, () => log.push('y'));
    });
    s.at(5, () => log.push('w'));
    s.runUntilIdle();
    expect(log).toEqual(['w', 'x', 'y']);
  });

  it('cancels in O(1) without running the cancelled event, and a stale id cancels nothing', () => {
    const s = new Scheduler();
    const log: number[] = [];
    const ids = [1, 2, 3, 4].map((t) => s.at(t, (x: number) => log.push(x), t));
    expect(s.cancel(ids[1]!)).toBe(true);
    expect(s.cancel(ids[1]!)).toBe(false);
    expect(s.pending).toBe(3);
    s.runUntilIdle();
    expect(log).toEqual([1, 3, 4]);
    // ids[0] ran; its slot was reused by nothing yet, but cancelling it must not touch a later event.
    const later = s.at(10, (x: number) => log.push(x), 10);
    expect(s.cancel(ids[0]!)).toBe(false);
    s.runUntilIdle();
    expect(log).toEqual([1, 3, 4, 10]);
    expect(s.cancel(later)).toBe(false);
  });

  it('runUntil runs events at or before the time and then sets the clock to it', () => {
    const s = new Scheduler();
    const log: number[] = [];
    for (const t of [ms(1), ms(2), ms(3)]) s.at(t, () => log.push(s.now));
    expect(s.runUntil(ms(2))).toBe(2);
    expect(log).toEqual([ms(1), ms(2)]);
    expect(s.now).toBe(ms(2));
    expect(s.runUntil(seconds(1))).toBe(1);
    expect(s.now).toBe(seconds(1));
    expect(s.idle).toBe(true);
  });

  it('steps one event at a time', () => {
    const s = new Scheduler();
    const log: string[] = [];
    s.at(7, () => log.push('a'));
    s.at(9, () => log.push('b'));
    expect(s.step()).toBe(true);
    expect(log).toEqual(['a']);
    expect(s.now).toBe(7);
    expect(s.peekTime()).toBe(9);
    expect(s.step()).toBe(true);
    expect(s.step()).toBe(false);
  });

  it('refuses to schedule in the past and names the offender', () => {
    const s = new Scheduler();
    s.at(100, () => {});
    s.runUntilIdle();
    function retryProduce() {}
    expect(() => s.at(50, retryProduce)).toThrow(SchedulingError);
    expect(() => s.at(50, retryProduce)).toThrow(/retryProduce at 50us.*before the current time 100us/);
    expect(() => s.after(-1, () => {}, undefined, 'the fetch timer')).toThrow(/the fetch timer/);
    expect(() => s.at(Number.NaN, () => {}, undefined, 'a bad time')).toThrow(/a bad time/);
  });

  it('stops at maxEvents without advancing the clock past unrun events', () => {
    const s = new Scheduler();
    for (let i = 1; i <= 10; i++) s.at(i, () => {});
    expect(s.runUntil(100, 4)).toBe(4);
    expect(s.now).toBe(4);
    expect(s.pending).toBe(6);
  });

  it('drops cancelled entries once they outnumber the live ones in a big heap, and keeps (time, seq) order', () => {
    const s = new Scheduler();
    const ran: number[] = [];
    // A timer re-armed over and over (a request timeout): each arm cancels the previous one, far in the future.
    let timer = s.at(1_000_000, () => ran.push(-1));
    for (let i = 0; i < 5000; i++) {
      s.cancel(timer);
      timer = s.at(1_000_000 + i, () => ran.push(-1));
    }
    // Live events at equal times, scheduled among the cancels: they must still run first-in first-out.
    for (let i = 0; i < 100; i++) s.at(10 + (i % 3), () => ran.push(i));
    expect(s.pending).toBe(101);
    expect(s.heapEntries).toBeLessThan(2 * 1024 + 101 + 1);
    s.cancel(timer);
    s.runUntilIdle();
    const expected = [0, 1, 2].flatMap((r) => Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 3 === r));
    expect(ran).toEqual(expected);
    expect(s.heapEntries).toBe(0);
  });
});

