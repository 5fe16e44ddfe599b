import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ofKind, type TraceEvent } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

function trace(id: string): TraceEvent[] {
  return runScenario(validateScenario(JSON.parse(readFileSync(join(ROOT, 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec), { seed: 1 }).trace as TraceEvent[];
}

/** Whether a cell is inside the window the user sees (not scrolled or clipped away). */
async function onScreen(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (n) => {
    const r = n.getBoundingClientRect();
    let ok = r.left >= 0 && r.right <= window.innerWidth && r.top >= 0 && r.bottom <= window.innerHeight && r.width > 0;
    // Inside every scrolling ancestor's visible box too.
    for (let p = n.parentElement; p && ok; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (/(auto|scroll|hidden)/.test(s.overflow + s.overflowX + s.overflowY)) {
        const b = p.getBoundingClientRect();
        ok = r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
      }
    }
    return ok;
  });
}

/** The partition view follows the story (issue 21, item 2): it frames the offsets a moment is about. */
describe.skipIf(!browserAvailable())('the partition view follows the story in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('frames the truncated offsets at the truncation step of acks1-leader-crash', async () => {
    const cut = ofKind(trace('acks1-leader-crash'), 'replica.truncate')[0]!;
    expect([cut.to, cut.from - 1]).toEqual([1001, 1576]);
    const { page, errors } = await openPage(app, `?s=acks1-leader-crash&seed=1&e=${cut.seq}`);
    await waitLoaded(page, 1);
    expect(Number(await status(page, 'cursor'))).toBe(cut.seq);
    const focus = page.locator('[data-testid=partition-A] [data-testid=pv-focus]');
    await expect(focus.getAttribute('data-lo')).resolves.toBe(String(cut.to));
    await expect(focus.getAttribute('data-hi')).resolves.toBe(String(cut.from - 1));
    await expect(focus.textContent()).resolves.toContain(`broker ${cut.broker} truncated offsets 1001–1576`);
    // The first and the last removed offset are drawn in the removed strip, and both are on screen.
    for (const o of [cut.to, cut.from - 1]) {
      const sel = `[data-testid=partition-A] rect.cell.ghost[data-broker="${cut.broker}"][data-offset="${o}"]`;
      expect(await page.locator(sel).count()).toBe(1);
      expect(await onScreen(page, sel), `offset ${o} on screen`).toBe(true);
    }
    await screenshot(page, 'story-truncation');

    // A lost write past the checker's first stories still has its whole story: the truncation that removed it.
    await page.click('[data-testid=tab-checks]');
    const late = page.locator('[data-testid=lost-write]').nth(24);
    await late.click();
    await page.waitForSelector('[data-testid=story] li');
    await expect(page.locator('[data-testid=story]').textContent()).resolves.toContain(`Broker ${cut.broker} truncated its log from ${cut.from} to ${cut.to}`);

    // Compare acks=1 with acks=all at the same step: the cells lost only in A are marked, and the table says B did better.
    await page.goto(`${app.url}?s=acks1-leader-crash&seed=1&compare=1&b=producer.acks%3Dall&e=${cut.seq}`);
    await waitLoaded(page, 1);
    expect(await page.locator('[data-testid=partition-A] [data-testid=diff-lost]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=partition-B] [data-testid=diff-lost]').count()).toBe(0);
    await expect(page.locator('[data-testid=compare-table] [data-check=lost-write]').getAttribute('data-verdict')).resolves.toBe('better');
    await screenshot(page, 'compare-difference');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows page-cache-only cells lost at a power loss, and marks a high watermark beyond the window', async () => {
    const elr = trace('elr-last-replica-standing');
    const off = ofKind(elr, 'host.power-off')[0]!;
    const broker = off.node.replace('broker-', '');
    const { page, errors } = await openPage(app, `?s=elr-last-replica-standing&seed=1&e=${off.seq}`);
    await waitLoaded(page, 1);
    const lost = page.locator(`[data-testid=partition-A] rect.cell.powerlost[data-broker="${broker}"]`);
    expect(await lost.count()).toBeGreaterThan(0);
    await expect(page.locator('[data-testid=partition-A] [data-testid=pv-focus]').textContent()).resolves.toContain(`broker ${broker} lost power`);
    // Nothing but the powered-off broker's page cache is shown lost.
    expect(await page.locator(`[data-testid=partition-A] rect.cell.powerlost:not([data-broker="${broker}"])`).count()).toBe(0);
    await screenshot(page, 'story-power-loss');

    // kip101-legacy-divergence, after the old leader returned: the replicas disagree at low offsets while the
    // high watermark is far to the right, off the window, and says so at the edge.
    const div = trace('kip101-legacy-divergence');
    const back = ofKind(div, 'caption').at(-1)!;
    await page.goto(`${app.url}?s=kip101-legacy-divergence&seed=1&e=${back.seq + 2000}`);
    await waitLoaded(page, 1);
    await expect(page.locator('[data-testid=partition-A] [data-testid=pv-focus]').textContent()).resolves.toContain('the replicas hold different records at offsets 0–');
    await expect(page.locator('[data-testid=partition-A] [data-testid=hw-edge]').textContent()).resolves.toMatch(/^HW \d+ ▶$/);
    await screenshot(page, 'story-divergence');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('outlines record batches: linger.ms=5 packs several times more records into a batch than linger.ms=0', async () => {
    const { page, errors } = await openPage(app, '?s=why-kafka-is-fast&seed=1&p=clicks-linger-0-0');
    await waitLoaded(page, 1);
    await page.keyboard.press('End');
    const mean = async () => {
      await page.waitForSelector('[data-testid=partition-A] [data-testid=batch]');
      const sizes = await page.$$eval('[data-testid=partition-A] [data-testid=batch]', (ns) => ns.map((n) => Number(n.getAttribute('data-records'))));
      return sizes.reduce((a, b) => a + b, 0) / sizes.length;
    };
    const eager = await mean();
    await screenshot(page, 'batches-linger-0');
    await page.selectOption('[data-testid=partition-A] [data-testid=partition-select]', 'clicks-linger-5-0');
    await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    const lingering = await mean();
    expect(lingering).toBeGreaterThan(2 * eager);
    await expect(page.locator('[data-testid=partition-A] [data-testid=batch-stat]').textContent()).resolves.toMatch(/records per batch/);
    await screenshot(page, 'batches-linger-5');
    expect(errors).toEqual([]);
    await page.close();
  });
});
