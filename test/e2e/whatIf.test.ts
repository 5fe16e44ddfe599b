import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const SURVIVES = 'acks-all-min-isr-2-survives-one';

/** What if, live (issue 21, item 3): a click on a broker adds a fault at the cursor and compares against the original. */
describe.skipIf(!browserAvailable())('what if, from the screen, in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('crashes a broker by a click: a compare view with the original on side A and the fork on B, reproducible by its link', async () => {
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', `${SURVIVES}.json`), 'utf8')) as ScenarioSpec;
    const original = runScenario(validateScenario(spec), { seed: 1 });
    const { page, errors } = await openPage(app, `?s=${SURVIVES}&seed=1&t=3000`);
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(original.traceHash);
    await page.click('[data-testid=cluster-A] [data-host="broker-2"]');
    await page.waitForSelector('[data-testid=host-menu]:not([hidden])');
    await screenshot(page, 'what-if-menu');
    await page.click('[data-testid=fault-crash-stay]');
    await waitLoaded(page, 2);
    // A is the original run, byte for byte; B is the same seed with broker 2 crashed at 3 s.
    expect(await status(page, 'hash')).toBe(original.traceHash);
    await expect(page.locator('[data-testid=hash-A]').textContent()).resolves.toContain(original.traceHash);
    const forked = runScenario(validateScenario({ ...spec, faults: [...(spec.faults ?? []), { at: 3000, fault: 'crash', targets: ['broker-2'] }] }), { seed: 1 });
    expect(await status(page, 'hash-b')).toBe(forked.traceHash);
    expect(forked.traceHash).not.toBe(original.traceHash);
    await expect(page.locator('[data-testid=partition-B]').count()).resolves.toBe(1);
    const titleB = (await page.locator('[data-pane="B"] .pane-title').textContent()) ?? '';
    expect(titleB).toContain('+ crash broker 2 at 3.000s');
    // Two timelines: B's has the crash A's does not.
    expect(await page.locator('[data-testid=timeline-svg]:visible').count()).toBe(2);
    expect(await page.locator('[data-testid=timeline] [data-legend-kind=down-crashed]').count()).toBe(0);
    expect(await page.locator('[data-testid=timeline-B] [data-legend-kind=down-crashed]').count()).toBe(1);
    // Each side tells its own story.
    expect(await page.locator('[data-testid=pane-caption-A]').isVisible()).toBe(true);
    expect(await page.locator('[data-testid=pane-caption-B]').isVisible()).toBe(true);
    await screenshot(page, 'what-if-compare');
    // The link carries the fork.
    const url = await status(page, 'url');
    expect(url).toContain('fb=crash%3Abroker-2%403000');
    const again = await openPage(app, url);
    await waitLoaded(again.page, 1);
    expect(await status(again.page, 'hash-b')).toBe(forked.traceHash);
    expect(errors).toEqual([]);
    expect(again.errors).toEqual([]);
    await again.page.close();
    await page.close();
  });
});
