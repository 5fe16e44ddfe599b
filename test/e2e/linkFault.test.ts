import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const SPEC: ScenarioSpec = {
  id: 'link-what-if',
  title: 'A link to cut',
  duration: '10s',
  quiet: '2s',
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  producers: [{ id: 'producer-1', config: { acks: 'all' }, workload: { topic: 'orders', rate: 50 } }],
  faults: [],
};

/** What if, on a link (issue 21, item 3): a node's links entry cuts or slows the link to one peer at the cursor. */
describe.skipIf(!browserAvailable())('link faults from the screen, in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('cuts the link between two brokers by a click: compare with the original on A, and a slowed link by its URL', async () => {
    const original = runScenario(validateScenario(SPEC), { seed: 1 });
    const { page, errors } = await openPage(app, `?spec=${encodeURIComponent(JSON.stringify(SPEC))}&seed=1&t=3000`, { width: 1280, height: 720 });
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(original.traceHash);
    await page.click('[data-testid=cluster-A] [data-host="broker-1"]', { button: 'right' });
    await page.waitForSelector('[data-testid=host-menu]:not([hidden])');
    // Its peers: the other brokers, the controllers and the producer; not itself, not the UI's admin.
    const peers = await page.$$eval('[data-testid=link-menu] .link-row', (ns) => ns.map((n) => n.getAttribute('data-peer')));
    expect(peers).toEqual(['controller-1', 'controller-2', 'controller-3', 'broker-2', 'broker-3', 'producer-1']);
    await screenshot(page, 'link-menu');
    await page.click('[data-testid=link-partition-broker-2]');
    await waitLoaded(page, 2);
    // A stays the original byte for byte; B is the same seed with a partition of {broker-1} from {broker-2} at 3 s.
    expect(await status(page, 'hash')).toBe(original.traceHash);
    const cut = runScenario(validateScenario({ ...SPEC, faults: [{ at: 3000, fault: 'partition', groups: [['broker-1'], ['broker-2']], duration: 10000 }] }), { seed: 1 });
    expect(await status(page, 'hash-b')).toBe(cut.traceHash);
    expect(cut.traceHash).not.toBe(original.traceHash);
    await expect(page.locator('[data-pane="B"] .pane-title').textContent()).resolves.toContain('+ cut link broker 1 ↔ broker 2 at 3.000s for 10 s');
    // B's timeline shows the partition, A's has none.
    expect(await page.locator('[data-testid=timeline-B] text.fault-label', { hasText: 'partition' }).count()).toBe(1);
    expect(await page.locator('[data-testid=timeline] text.fault-label', { hasText: 'partition' }).count()).toBe(0);
    await screenshot(page, 'link-cut-compare');
    const url = await status(page, 'url');
    expect(new URL(url, app.url).searchParams.get('fb')).toBe('partition:broker-1~broker-2@3000+10000');

    // The slowed link, by its link: +500 ms each way between broker 1 and broker 2.
    const slowUrl = new URL(url, app.url);
    slowUrl.searchParams.set('fb', 'latency:broker-1~broker-2@3000+10000');
    const slow = await openPage(app, slowUrl.search, { width: 1280, height: 720 });
    await waitLoaded(slow.page, 1);
    const slowed = runScenario(validateScenario({ ...SPEC, faults: [{ at: 3000, fault: 'latency', from: ['broker-1', 'broker-2'], to: ['broker-1', 'broker-2'], addMs: 500, duration: 10000 }] }), { seed: 1 });
    expect(await status(slow.page, 'hash')).toBe(original.traceHash);
    expect(await status(slow.page, 'hash-b')).toBe(slowed.traceHash);
    await expect(slow.page.locator('[data-pane="B"] .pane-title').textContent()).resolves.toContain('+ slow link (+500 ms) broker 1 ↔ broker 2 at 3.000s for 10 s');
    expect(errors).toEqual([]);
    expect(slow.errors).toEqual([]);
    await slow.page.close();
    await page.close();
  });
});
