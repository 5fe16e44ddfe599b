import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ofKind, type TraceEvent } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, waitLoaded, type AppServer } from './support';

function trace(id: string): TraceEvent[] {
  return runScenario(validateScenario(JSON.parse(readFileSync(join(ROOT, 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec), { seed: 1 }).trace as TraceEvent[];
}

const cell = (tp: string, offset: number) => `[data-testid=share-pane] [data-testid=share-cell][data-tp="${tp}"][data-offset="${offset}"]`;

/** Every share cell lies across inside the stage (which scrolls down, never across), and the page is no wider than the window. */
async function fitsAcross(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const stage = document.getElementById('stage')!.getBoundingClientRect();
    for (const n of document.querySelectorAll('[data-testid=share-pane] [data-testid=share-cell], [data-testid=share-pane] .share-title')) {
      const r = n.getBoundingClientRect();
      if (r.left < stage.left - 1 || r.right > stage.right + 1) out.push(`${n.getAttribute('data-offset') ?? n.textContent} at ${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(stage.left)}..${Math.round(stage.right)}`);
    }
    const pane = document.getElementById('share-pane')!;
    if (pane.scrollWidth > pane.clientWidth + 1) out.push(`the share pane is ${pane.scrollWidth - pane.clientWidth}px wider than its box`);
    if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('the page is wider than the window');
    return out;
  });
}

/** Every kind of marker the timeline draws has its glyph in the legend (issue 21, item 6). */
async function legendListsEveryGlyph(page: Page): Promise<string[]> {
  const drawn = await page.$$eval('[data-testid=timeline] [data-testid=timeline-svg] [data-kind]', (ns) => [...new Set(ns.map((n) => n.getAttribute('data-kind')!))]);
  const listed = await page.$$eval('[data-testid=timeline] [data-testid=timeline-legend] [data-legend-kind]', (ns) => ns.map((n) => n.getAttribute('data-legend-kind')!));
  for (const k of drawn) expect(listed, `legend lists ${k}`).toContain(k);
  return drawn;
}

/** The share-partition view (issue 19, UI): in-flight records by state and delivery count, holders, SPSO/SPEO, and share glyphs on the timeline. */
describe.skipIf(!browserAvailable())('the share-partition view in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows the poison pill ARCHIVED after five deliveries while the rest of its partition flows', async () => {
    const tr = trace('share-group-poison-pill');
    const archive = ofKind(tr, 'share.transition').find((e) => e.to === 'ARCHIVED' && e.cause !== 'gap')!;
    expect([archive.offsets.length, archive.deliveryCounts[0]]).toEqual([1, 5]);
    const tp = `${archive.topic}-${archive.partition}`;
    const pill = archive.offsets[0]!;

    const { page, errors } = await openPage(app, `?s=share-group-poison-pill&seed=1&view=share&e=${archive.seq}`, { width: 1280, height: 720 });
    await waitLoaded(page, 1);
    expect(await page.locator('#share-pane').isVisible()).toBe(true);
    const c = page.locator(cell(tp, pill));
    await expect(c.getAttribute('data-state')).resolves.toBe('ARCHIVED');
    await expect(c.getAttribute('data-delivery')).resolves.toBe('5');
    await expect(c.textContent()).resolves.toBe('5');
    // SPSO has moved past the pill; everything before it on its partition was acknowledged, once.
    const block = page.locator(`[data-testid=share-pane] [data-testid=share-partition][data-tp="${tp}"]`);
    await expect(block.getAttribute('data-spso')).resolves.toBe(String(pill + 1));
    const before = await page.$$eval(`[data-testid=share-pane] [data-testid=share-cell][data-tp="${tp}"]`, (ns, o) => ns.filter((n) => Number(n.getAttribute('data-offset')) < o).map((n) => `${n.getAttribute('data-state')}/${n.getAttribute('data-delivery')}`), pill);
    expect(before.length).toBeGreaterThan(5);
    expect(new Set(before)).toEqual(new Set(['ACKNOWLEDGED/1']));
    // The hover says who held it and how often it was delivered.
    await c.hover();
    await expect(page.locator('[data-testid=tooltip]').textContent()).resolves.toMatch(/delivered 5 times \(limit 5\).*last held by share-ledger-\d/);
    // The timeline marks the archive, and its legend lists every glyph drawn.
    expect(await page.locator('[data-testid=timeline] [data-testid=timeline-svg] [data-kind=archived]').count()).toBe(1);
    expect(await legendListsEveryGlyph(page)).toContain('archived');
    expect(await fitsAcross(page)).toEqual([]);
    await screenshot(page, 'share-poison-pill-archived');

    // At the end the pill's partition has flowed on: SPSO far past it, and no other record given up on.
    await page.keyboard.press('End');
    await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    expect(Number(await block.getAttribute('data-spso'))).toBeGreaterThan(pill + 50);
    const archived = await page.$$eval('[data-testid=share-pane] [data-testid=share-partition]', (ns) => ns.map((n) => [n.getAttribute('data-tp'), n.getAttribute('data-archived')]));
    expect(archived.length).toBe(3);
    for (const [p, n] of archived) expect(n, p!).toBe(p === tp ? '1' : '0');
    await screenshot(page, 'share-poison-pill-end');

    // The lesson's experiment, beside it: with group.share.delivery.count.limit=3 the pill is archived after three deliveries.
    await page.goto(`${app.url}?s=share-group-poison-pill&seed=1&view=share&compare=1&b=broker.group.share.delivery.count.limit%3D3&e=${archive.seq}`);
    // Two runs in the page's worker: more time on a loaded machine.
    await waitLoaded(page, 1, 180_000);
    const side = (label: string) => `[data-testid=share-pane] .share-side[data-side=${label}] [data-testid=share-cell][data-tp="${tp}"][data-state=ARCHIVED]`;
    await expect(page.locator(side('A')).getAttribute('data-delivery')).resolves.toBe('5');
    await expect(page.locator(side('B')).getAttribute('data-delivery')).resolves.toBe('3');
    expect(await fitsAcross(page)).toEqual([]);
    await screenshot(page, 'share-poison-pill-compare');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a record redelivered with delivery count 2 after the crashed consumer\'s lock expired', async () => {
    const tr = trace('share-consumer-crash-redelivery');
    const expired = ofKind(tr, 'share.transition').find((e) => e.cause === 'lock-expired')!;
    const offset = expired.offsets[0]!;
    const again = ofKind(tr, 'share.acquire').find((e) => e.seq > expired.seq && e.partition === expired.partition && e.offsets.includes(offset))!;
    expect(again.deliveryCounts[again.offsets.indexOf(offset)]).toBe(2);
    const tp = `${expired.topic}-${expired.partition}`;
    const { page, errors } = await openPage(app, `?s=share-consumer-crash-redelivery&seed=1&view=share&e=${expired.seq}`, { width: 1280, height: 720 });
    await waitLoaded(page, 1);
    // At the expiry: available again, delivered once, held by nobody.
    const c = page.locator(cell(tp, offset));
    await expect(c.getAttribute('data-state')).resolves.toBe('AVAILABLE');
    await expect(c.getAttribute('data-delivery')).resolves.toBe('1');
    await expect(c.getAttribute('data-holder')).resolves.toBe('');
    expect(await page.locator('[data-testid=timeline] [data-testid=timeline-svg] [data-kind=lock-expired]').count()).toBeGreaterThan(0);
    expect(await legendListsEveryGlyph(page)).toContain('lock-expired');
    await screenshot(page, 'share-crash-lock-expired');

    // After it: another member acquired it, delivery count 2.
    await page.goto(`${app.url}?s=share-consumer-crash-redelivery&seed=1&view=share&e=${again.seq}`);
    await waitLoaded(page, 1);
    await expect(c.getAttribute('data-state')).resolves.toBe('ACQUIRED');
    await expect(c.getAttribute('data-delivery')).resolves.toBe('2');
    await expect(c.textContent()).resolves.toBe('2');
    const holder = await c.getAttribute('data-holder');
    expect(holder).toMatch(/^worker-\d$/);
    expect(expired.memberId.startsWith(`${holder}-`)).toBe(false);
    // The holder's name is over its records, and the SPSO and SPEO lines are drawn.
    expect(await page.locator(`[data-testid=share-pane] [data-testid=share-partition][data-tp="${tp}"] [data-testid=share-holder]`, { hasText: holder! }).count()).toBeGreaterThan(0);
    expect(await page.locator(`[data-testid=share-pane] [data-testid=share-partition][data-tp="${tp}"] [data-testid=spso]`).count()).toBe(1);
    expect(await fitsAcross(page)).toEqual([]);
    await screenshot(page, 'share-crash-redelivered');

    // Later, a click on the record chooses it (a ring) and takes the cursor back to its last change.
    const later = again.seq + 40;
    const touches = (e: TraceEvent) => (e.kind === 'share.acquire' || e.kind === 'share.transition') && e.topic === expired.topic && e.partition === expired.partition && e.offsets.includes(offset);
    const last = tr.filter((e) => e.seq <= later && touches(e)).at(-1)!;
    expect(last.seq).toBeLessThan(later);
    await page.goto(`${app.url}?s=share-consumer-crash-redelivery&seed=1&view=share&e=${later}`);
    await waitLoaded(page, 1);
    await c.click();
    await page.waitForFunction((i) => document.querySelector('#status')!.getAttribute('data-cursor') === String(i), last.seq);
    expect(await page.locator('[data-testid=share-pane] [data-testid=share-chosen]').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });
});
