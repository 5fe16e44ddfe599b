import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import { addTestProcess, eventsOf, makeWorld, scheduleFaults } from '../../unit/world/harness';

/*
 * A receiver on host hp sets timers; two senders on hs send it numbered messages. The latency is exactly 1ms
 * (no jitter), so each arrival time is known without running the network. Pauses of hp come from a validated
 * schedule and may overlap: the host is paused over the union of their intervals.
 *
 * Expected, computed here from the schedule alone: an item (a timer falling due, a message arriving) outside
 * every pause is handled when it happens; one inside a paused stretch is handled when that stretch ends, after
 * the items queued before it, in the order they happened. Times are chosen so nothing ties: pause edges at whole
 * milliseconds, timers due at +333us, arrivals at +100us.
 */

interface Item {
  readonly what: string;
  readonly at: number;
}

function pausedStretches(pauses: { at: number; duration: number }[]): [number, number][] {
  const iv = pauses.map((p) => [ms(p.at), ms(p.at + p.duration)] as [number, number]).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of iv) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

describe('pause: a paused host handles nothing until it resumes, then what queued, in order', () => {
  it('timers that fell due and messages that arrived during a pause run at the resume, in the order they happened', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ at: fc.integer({ min: 1, max: 400 }), duration: fc.integer({ min: 1, max: 150 }) }), { maxLength: 4 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 600 }), { maxLength: 20 }),
        fc.array(fc.tuple(fc.constantFrom('s1', 's2'), fc.integer({ min: 0, max: 600 })), { maxLength: 30 }),
        (pauses, timerMs, sendMs) => {
          const world = makeWorld({ hosts: ['hp', 'hs'], network: { sameZone: { baseMs: 1, jitterMs: 0 } } });
          const handled: { what: string; t: number }[] = [];
          addTestProcess(world, 'hp', 'r', {
            start(p) {
              for (const t of timerMs) p.setTimer(ms(t) + 333, () => handled.push({ what: `timer@${t}`, t: p.now }));
            },
            message(p, from, msg) {
              handled.push({ what: `${from}:${String(msg)}`, t: p.now });
            },
          });
          const items: Item[] = timerMs.map((t) => ({ what: `timer@${t}`, at: ms(t) + 333 }));
          for (const sender of ['s1', 's2'] as const) {
            // The k-th send in time order carries k and arrives exactly 1ms later.
            const times = sendMs.filter(([s]) => s === sender).map(([, t]) => ms(t) + 100).sort((a, b) => a - b);
            times.forEach((t, k) => items.push({ what: `${sender}:${k}`, at: t + ms(1) }));
            addTestProcess(world, 'hs', sender, {
              start(p) {
                times.forEach((t, k) => p.setTimer(t, () => p.send('r', k)));
              },
            });
          }
          scheduleFaults(
            world,
            pauses.map((p) => ({ at: p.at, fault: 'pause' as const, targets: ['hp'], duration: p.duration })),
          );
          world.start();
          world.runUntil(ms(1000));

          const stretches = pausedStretches(pauses);
          const handledAt = (at: number) => stretches.find(([s, e]) => at > s && at < e)?.[1] ?? at;
          const expected = items
            .map((x) => ({ what: x.what, t: handledAt(x.at), at: x.at }))
            .sort((a, b) => a.t - b.t || a.at - b.at)
            .map(({ what, t }) => ({ what, t }));
          expect(handled).toEqual(expected);
          // Nothing ran inside a paused stretch.
          for (const h of handled) for (const [s, e] of stretches) expect(h.t > s && h.t < e).toBe(false);
          // Each resume reports how many items it released.
          const resumes = eventsOf(world, 'host.resume');
          expect(resumes.map((e) => e.t)).toEqual(stretches.map(([, e]) => e));
          expect(resumes.map((e) => e.queued)).toEqual(stretches.map(([s, e]) => items.filter((x) => x.at > s && x.at < e).length));
        },
      ),
      { numRuns: 300 },
    );
  });
});
