import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateSchedule, type FaultEntry } from '../../../sim/world/nemesis';
import {
  RaftCluster,
  commitDisagreements,
  epochRegressions,
  lostCommitted,
  twoLeaderEpochs,
} from '../../unit/raft/raftCluster';

/**
 * KRaft safety under generated fault schedules: crashes, power losses, pauses and partitions of voters (and,
 * in the second property, of anything), with the leader appending records all along. Checked on the trace and
 * on what each incarnation of each node was told was committed:
 *  - at most one leader per epoch;
 *  - a node's epoch never goes back (across restarts too);
 *  - committed records form one sequence (same record at an offset everywhere) and are never lost;
 *  - once the faults heal, the committed prefix keeps growing.
 */

// More runs locally: RAFT_PROPERTY_RUNS=500 npx vitest run --project property test/property/raft
const RUNS = Number(process.env.RAFT_PROPERTY_RUNS ?? 60);

type Kind = 'crash' | 'power-loss' | 'pause' | 'isolate';

interface FaultPick {
  readonly atMs: number;
  readonly kind: Kind;
  readonly target: number;
  readonly durationMs: number;
}

const faultArb = (maxAtMs: number): fc.Arbitrary<FaultPick> =>
  fc.record({
    atMs: fc.integer({ min: 500, max: maxAtMs }),
    kind: fc.constantFrom<Kind>('crash', 'power-loss', 'pause', 'isolate'),
    target: fc.nat({ max: 7 }),
    durationMs: fc.integer({ min: 100, max: 6000 }),
  });

/** Keeps only faults that leave a majority of voters healthy: at most (n-1)/2 impaired (incl. restart time). */
function minorityOnly(faults: readonly FaultPick[], voters: number, restartMs: number): FaultPick[] {
  const budget = (voters - 1) >> 1;
  const busy: { host: number; until: number }[] = [];
  const out: FaultPick[] = [];
  for (const f of [...faults].sort((a, b) => a.atMs - b.atMs)) {
    const host = f.target % voters;
    const live = busy.filter((b) => b.until > f.atMs);
    if (live.some((b) => b.host === host) || live.length >= budget) continue;
    busy.push({ host, until: f.atMs + f.durationMs + restartMs });
    out.push(f);
  }
  return out;
}

function toEntries(faults: readonly FaultPick[], hostIds: readonly string[]): FaultEntry[] {
  return faults.map((f) => ({ at: f.atMs, fault: f.kind, targets: [hostIds[f.target % hostIds.length]!], duration: f.durationMs }));
}

/** A fault hitting several hosts at the same instant (a rack losing power, a switch failing). */
interface BlastPick {
  readonly atMs: number;
  readonly kind: Kind;
  readonly targets: readonly number[];
  readonly durationMs: number;
}

const blastArb: fc.Arbitrary<BlastPick> = fc.record({
  atMs: fc.integer({ min: 500, max: 20_000 }),
  kind: fc.constantFrom<Kind>('crash', 'power-loss', 'power-loss', 'pause', 'isolate'),
  targets: fc.uniqueArray(fc.nat({ max: 5 }), { minLength: 2, maxLength: 5 }),
  durationMs: fc.integer({ min: 100, max: 6000 }),
});

function checkSafety(c: RaftCluster): void {
  const events = c.events();
  expect(twoLeaderEpochs(events)).toEqual([]);
  expect(epochRegressions(events)).toEqual([]);
  expect(commitDisagreements(c.recorder)).toEqual([]);
}

/** After the faults: a leader, a growing committed prefix, and every committed record in its log and its followers'. */
function checkHealed(c: RaftCluster): void {
  const leader = c.runUntilLeader(15_000);
  expect(leader).not.toBeNull();
  const hw0 = c.client(leader!)!.highWatermark!;
  c.runFor(5000);
  const now = c.leaders();
  expect(now.length).toBe(1);
  const l = c.client(now[0]!)!;
  expect(l.highWatermark!).toBeGreaterThan(hw0);
  expect(lostCommitted(c.recorder, l.logBatches())).toEqual([]);
  for (const v of c.voterIds) {
    const f = c.client(v)!;
    expect(f.inspect()).toMatchObject({ leaderId: now[0], epoch: l.epoch });
    expect(lostCommitted(c.recorder, f.logBatches(), f.highWatermark ?? 0)).toEqual([]);
  }
  checkSafety(c);
}

describe('KRaft safety under faults', () => {
  it('with at most a minority of voters impaired at once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(3, 5),
        fc.constantFrom(20, 50, 200),
        fc.array(faultArb(20_000), { maxLength: 12 }),
        (seed, voters, appendEveryMs, picks) => {
          const c = new RaftCluster({ seed, voters, observers: 1, appendEveryMs });
          const faults = minorityOnly(picks, voters, 200);
          c.world.schedule(validateSchedule(toEntries(faults, c.voterIds), c.world.resolver));
          c.runFor(28_000);
          checkSafety(c);
          checkHealed(c);
          // An observer saw only committed records, in order.
          const obs = c.recorder.byNode.get('broker-1')!;
          for (const inc of obs) for (let i = 1; i < inc.entries.length; i++) expect(inc.entries[i]!.offset).toBeGreaterThan(inc.entries[i - 1]!.offset);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('with anything going wrong, any number of nodes at once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(3, 5),
        fc.constantFrom(20, 100),
        fc.array(faultArb(20_000), { maxLength: 16 }),
        fc.array(blastArb, { maxLength: 4 }),
        fc.array(fc.record({ atMs: fc.integer({ min: 500, max: 20_000 }), split: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), durationMs: fc.integer({ min: 100, max: 8000 }) }), { maxLength: 4 }),
        (seed, voters, appendEveryMs, picks, blasts, partitions) => {
          // Only fsync makes data durable here (no OS writeback to get lucky with), and fsyncs are slowish.
          const c = new RaftCluster({ seed, voters, observers: 1, appendEveryMs, disk: { fsyncLatencyMs: 8, writebackDelayMs: null } });
          const hosts = c.allIds;
          const entries = toEntries(picks, hosts);
          for (const b of blasts) {
            const targets = [...new Set(b.targets.map((i) => hosts[i % hosts.length]!))];
            entries.push({ at: b.atMs, fault: b.kind, targets, duration: b.durationMs });
          }
          for (const p of partitions) {
            const a = hosts.filter((_, i) => p.split[i]);
            const b = hosts.filter((_, i) => !p.split[i]);
            if (a.length > 0 && b.length > 0) entries.push({ at: p.atMs, fault: 'partition', groups: [a, b], duration: p.durationMs });
          }
          c.world.schedule(validateSchedule(entries, c.world.resolver));
          c.runFor(30_000);
          checkSafety(c);
          // Everything heals (faults have ended by now); bring back anything still down.
          c.world.network.heal();
          for (const h of c.world.hosts()) {
            h.resume();
            h.restart();
          }
          checkHealed(c);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
