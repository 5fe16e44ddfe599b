import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { ofKind, type TraceEvent } from '../../sim/core/trace';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const SPEC: ScenarioSpec = {
  id: 'fetch-batches',
  title: 'What each fetch returns',
  duration: '6s',
  quiet: '1s',
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'producer-1', config: { acks: 'all', 'linger.ms': 5 }, workload: { topic: 'orders', rate: 200 } }],
  consumers: [{ id: 'reader', group: 'readers', topics: ['orders'], config: { 'auto.offset.reset': 'earliest' } }],
};

type Range = [number, number];
const key = (r: Range) => `${r[0]}-${r[1]}`;
const sorted = (rs: Range[]) => [...new Set(rs.map(key))].sort();

/** Batch layers (issue 21, item 2): beside the producer's record batches, what each follower fetch and consumer poll returned. */
describe.skipIf(!browserAvailable())('fetch batches in the partition view, in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  // At 4 s: the group joined at ~3 s (group.initial.rebalance.delay.ms 3000), its consumer polls the tail.
  it('outlines each follower fetch and consumer poll with the offsets the trace says it returned', async () => {
    const run = runScenario(validateScenario(SPEC), { seed: 1 });
    const events = run.trace as TraceEvent[];
    const { page, errors } = await openPage(app, `?spec=${encodeURIComponent(JSON.stringify(SPEC))}&seed=1&t=4000`, { width: 1280, height: 720 });
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(run.traceHash);
    const cursor = Number(await status(page, 'cursor'));
    const svg = page.locator('[data-testid=partition-A] [data-testid=partition-svg]');
    const start = Number(await svg.getAttribute('data-start'));
    const end = Number(await svg.getAttribute('data-end'));
    const inWindow = (lo: number, hi: number) => hi >= start && lo < end;
    const upToCursor = events.slice(0, cursor + 1);
    const appends = ofKind(upToCursor, 'replica.append').filter((e) => e.topic === 'orders' && inWindow(e.base, e.last));
    const leader = appends.find((e) => e.role === 'leader')!.broker;
    const drawn = (sel: string, broker?: number) =>
      page.$$eval(`[data-testid=partition-A] ${sel}${broker === undefined ? '' : `[data-broker="${broker}"]`}`, (ns) => ns.map((n) => [Number(n.getAttribute('data-base')), Number(n.getAttribute('data-last'))] as [number, number]));

    // Each follower's fetch brackets are its appends as a follower: one per fetch response, offsets as traced.
    const followers = [1, 2, 3].filter((b) => b !== leader);
    for (const b of followers) {
      const want = appends.filter((e) => e.broker === b && e.role === 'follower').map((e) => [e.base, e.last] as Range);
      expect(want.length, `broker ${b} fetched in the window`).toBeGreaterThan(0);
      expect(sorted(await drawn('[data-testid=fetch-follower]', b)), `broker ${b}'s fetches`).toEqual(sorted(want));
      // Its record batches are the producer's, as the leader appended them, not its fetches.
      const leaderBatches = appends.filter((e) => e.role === 'leader').map((e) => [e.base, e.last] as Range);
      const onFollower = await drawn('[data-testid=batch]', b);
      for (const r of onFollower) expect(leaderBatches.map(key), `broker ${b}'s batch ${key(r)}`).toContain(key(r));
    }
    // A fetch returns whole record batches: each one starts where a producer batch starts and ends where one ends.
    const leaderAll = ofKind(events, 'replica.append').filter((e) => e.topic === 'orders' && e.role === 'leader');
    for (const [lo, hi] of await drawn('[data-testid=fetch-follower]')) {
      expect(leaderAll.some((e) => e.base === lo), `a batch starts at ${lo}`).toBe(true);
      expect(leaderAll.some((e) => e.last === hi), `a batch ends at ${hi}`).toBe(true);
    }

    // Each consumer poll's bracket spans the offsets the poll returned from orders-0.
    const polls = ofKind(upToCursor, 'consumer.poll').flatMap((e) =>
      e.records.filter((r) => r.topic === 'orders' && r.offsets.length > 0).map((r) => [Math.min(...r.offsets), Math.max(...r.offsets)] as Range),
    ).filter(([lo, hi]) => inWindow(lo, hi));
    expect(polls.length).toBeGreaterThan(0);
    expect(sorted(await drawn('[data-testid=fetch-consumer]', leader))).toEqual(sorted(polls));
    await expect(page.locator('[data-testid=partition-A] [data-legend=fetch-follower]').isVisible()).resolves.toBe(true);
    await screenshot(page, 'fetch-batches');
    expect(errors).toEqual([]);
    await page.close();
  });
});
