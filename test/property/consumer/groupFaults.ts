import fc from 'fast-check';
import { ms } from '../../../sim/core/time';
import type { FakeWorld } from '../../support/fakeBroker';

/**
 * The fault model both ownership properties (classic and KIP-848 groups) run under: four consumers on two brokers
 * for a minute, with crashes and pauses of consumers, broker crashes, coordinator moves and processing stalls.
 */
export const CONSUMERS = 4;
export const RUN_MS = 60_000;

export interface Fault {
  /** crash / pause of a consumer's host; a broker's crash; the group coordinator moving to the other broker. */
  readonly kind: 'crash' | 'pause' | 'broker-crash' | 'move-coordinator';
  /** The consumer (or, for broker faults, the broker: this number mod 2). */
  readonly consumer: number;
  readonly atMs: number;
  readonly durationMs: number;
}

/** A consumer's processing stops for a while (a long GC, a slow downstream call). */
export interface Stall {
  readonly consumer: number;
  readonly atMs: number;
  readonly durationMs: number;
}

export const stallsArb: fc.Arbitrary<Stall[]> = fc.array(
  fc.record({ consumer: fc.integer({ min: 0, max: CONSUMERS - 1 }), atMs: fc.integer({ min: 1000, max: 50_000 }), durationMs: fc.integer({ min: 100, max: 15_000 }) }),
  { maxLength: 3 },
);

export const faultsArb: fc.Arbitrary<Fault[]> = fc.array(
  fc.record({
    kind: fc.constantFrom('crash', 'pause', 'crash', 'pause', 'broker-crash', 'move-coordinator'),
    consumer: fc.integer({ min: 0, max: CONSUMERS - 1 }),
    atMs: fc.integer({ min: 1000, max: 50_000 }),
    durationMs: fc.integer({ min: 100, max: 20_000 }),
  }),
  { maxLength: 5 },
);

/** Consumer i's stalls, as its processing model takes them. */
export function stallsOf(stalls: readonly Stall[], i: number): { atMs: number; durationMs: number }[] {
  return stalls.filter((s) => s.consumer === i).map((s) => ({ atMs: s.atMs, durationMs: s.durationMs }));
}

/** Six partitions of topic `t`, 600 records each in batches of 5 every 500 ms; the group `g`'s faults scheduled; then the minute run. */
export function produceFaultAndRun(w: FakeWorld, faults: readonly Fault[]): FakeWorld {
  for (let p = 0; p < 6; p++) w.produce('t', p, { count: 600, perBatch: 5, everyMs: 500 });
  const offsetsPartition = w.cluster.coordinatorPartitionOf('g');
  for (const f of faults) {
    if (f.kind === 'move-coordinator') {
      w.world.scheduler.at(ms(f.atMs), () => w.cluster.moveCoordinator(offsetsPartition, 1 - w.cluster.offsetsLeaders.get(offsetsPartition)!.leader));
      continue;
    }
    const host = f.kind === 'broker-crash' ? w.world.host(`b${f.consumer % 2}`) : w.world.host(`h-c${f.consumer}`);
    w.world.scheduler.at(ms(f.atMs), () => (f.kind === 'pause' ? host.pause() : host.crash()));
    w.world.scheduler.at(ms(f.atMs + f.durationMs), () => (f.kind === 'pause' ? host.resume() : host.restart(0)));
  }
  w.start();
  w.runUntilMs(RUN_MS);
  return w;
}
