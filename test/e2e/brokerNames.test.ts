import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const NAMES = ['london', 'paris', 'tokyo'];
const NAMED: ScenarioSpec = {
  id: 'named-brokers',
  title: 'Named brokers: the leader crashes',
  duration: '8s',
  quiet: '3s',
  cluster: { brokers: 3, brokerNames: NAMES },
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'producer-1', config: { acks: '1' }, workload: { topic: 'orders', rate: 50 } }],
  faults: [{ at: '3s', fault: 'crash', targets: ['leader:orders/0'], duration: '3s' }],
  captions: [{ at: '3s', text: '{leader:orders/0} crashes; {follower:orders/0} are left.', on: 'host.crash' }],
};

/** Every piece of text in the app, the SVG labels and tooltips' titles included, that says "broker 2" or "broker-2". */
async function brokerIds(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.querySelector('#app')!, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const m = /\bbroker[- ]\d+\b/i.exec(n.textContent ?? '');
      if (m) out.push(`${n.parentElement?.tagName.toLowerCase()}.${n.parentElement?.getAttribute('class') ?? ''}: ${(n.textContent ?? '').slice(0, 80)}`);
    }
    return out;
  });
}

/** Scenario-given broker names (issue 21, item 1): cards, rows, captions, timeline, what-if menu and compare use them. */
describe.skipIf(!browserAvailable())('broker names in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows the names a scenario gives its brokers everywhere, and never "broker 2"', async () => {
    const run = runScenario(validateScenario(NAMED), { seed: 1 });
    const crash = (run.trace as readonly { kind: string; node?: string }[]).find((e) => e.kind === 'host.crash')!;
    const crashed = NAMES[Number(crash.node!.replace('broker-', '')) - 1]!;
    const { page, errors } = await openPage(app, `?spec=${encodeURIComponent(JSON.stringify(NAMED))}&seed=1&t=3100`);
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(run.traceHash);
    // Cards, replica rows, the timeline's lanes and the caption.
    expect(await page.locator('[data-testid=cluster-A] .card.broker .card-title').allTextContents()).toEqual(NAMES);
    for (const name of NAMES) expect(await page.locator(`[data-testid=partition-A] .pv-rowname`, { hasText: name }).count()).toBe(1);
    const lanes = await page.$$eval('[data-testid=timeline] text.lane-label', (ns) => ns.map((n) => n.firstChild?.textContent ?? ''));
    for (const name of NAMES) expect(lanes).toContain(name);
    await expect(page.locator('[data-testid=caption]').textContent()).resolves.toContain(`${crashed} crashes; `);
    await page.click('[data-testid=tab-events]');
    expect(await brokerIds(page)).toEqual([]);
    await screenshot(page, 'broker-names');

    // The what-if menu and the compare view it opens.
    const other = NAMES.find((n) => n !== crashed)!;
    const otherId = `broker-${NAMES.indexOf(other) + 1}`;
    await page.click(`[data-testid=cluster-A] [data-host="${otherId}"]`);
    await page.waitForSelector('[data-testid=host-menu]:not([hidden])');
    await expect(page.locator('[data-testid=host-menu] .menu-head').textContent()).resolves.toMatch(new RegExp(`^${other} at 3\\.1`));
    await page.click('[data-testid=fault-crash-stay]');
    await waitLoaded(page, 2);
    await expect(page.locator('[data-pane="B"] .pane-title').textContent()).resolves.toContain(`+ crash ${other} at 3.100s`);
    expect(await page.locator('[data-testid=cluster-B] .card.broker .card-title').allTextContents()).toEqual(NAMES);
    expect(await brokerIds(page)).toEqual([]);
    await screenshot(page, 'broker-names-compare');
    expect(errors).toEqual([]);
    await page.close();
  });
});
