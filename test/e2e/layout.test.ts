import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ARTIFACTS, browserAvailable, openPage, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

/**
 * Everything on the page that is cut off with no way to see it: an element that hides its overflow while its
 * content is larger (an ellipsis is a deliberate shortening and is left out), and a page wider or taller than the
 * window while the page itself does not scroll.
 */
async function clipped(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const name = (n: Element) => `${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ''}${n.classList.length ? `.${[...n.classList].join('.')}` : ''}`;
    for (const n of document.body.querySelectorAll('*')) {
      if (!(n instanceof HTMLElement) || n.offsetParent === null) continue;
      const s = getComputedStyle(n);
      if (s.textOverflow === 'ellipsis') continue;
      const hidesX = s.overflowX === 'hidden' || s.overflowX === 'clip';
      const hidesY = s.overflowY === 'hidden' || s.overflowY === 'clip';
      if (hidesX && n.scrollWidth > n.clientWidth + 1) out.push(`${name(n)} cuts ${n.scrollWidth - n.clientWidth}px across`);
      if (hidesY && n.scrollHeight > n.clientHeight + 1) out.push(`${name(n)} cuts ${n.scrollHeight - n.clientHeight}px down`);
    }
    const root = document.documentElement;
    const bodyStyle = getComputedStyle(document.body);
    if (root.scrollWidth > window.innerWidth + 1 && bodyStyle.overflowX !== 'auto' && bodyStyle.overflowX !== 'scroll') out.push(`the page is ${root.scrollWidth - window.innerWidth}px wider than the window`);
    if (root.scrollHeight > window.innerHeight + 1 && /(hidden|clip)/.test(bodyStyle.overflowY + getComputedStyle(root).overflowY)) out.push(`the page is ${root.scrollHeight - window.innerHeight}px taller than the window and does not scroll`);
    return out;
  });
}

/** Layout and keys (issue 21, item 6): nothing clipped at 1280×720 and up; arrows and Space always drive the transport. */
describe.skipIf(!browserAvailable())('layout and keys in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('clips nothing at 1280×720 and 1400×900, many lanes and compare mode included', async () => {
    const cases: [string, { width: number; height: number }, string][] = [
      ['?s=acks1-leader-crash&seed=1', { width: 1280, height: 720 }, 'layout-1280-acks1'],
      ['?s=courier-hub&seed=1', { width: 1400, height: 900 }, 'layout-1400-courier-hub'],
      ['?s=courier-hub&seed=1', { width: 1280, height: 720 }, 'layout-1280-courier-hub'],
      ['?s=acks1-leader-crash&seed=1&compare=1&b=producer.acks%3Dall', { width: 1400, height: 900 }, 'layout-1400-compare'],
    ];
    for (const [query, viewport, shot] of cases) {
      const { page, errors } = await openPage(app, query, viewport);
      await waitLoaded(page, 1);
      expect(await clipped(page), `${query} at ${viewport.width}×${viewport.height}`).toEqual([]);
      // Every lane of the timeline and its legend can be scrolled to.
      const tl = await page.$eval('[data-testid=timeline]', (n) => ({ scroll: n.scrollHeight, legendBottom: (n.querySelector('.tl-legend') as HTMLElement).offsetTop + (n.querySelector('.tl-legend') as HTMLElement).offsetHeight }));
      expect(tl.legendBottom).toBeLessThanOrEqual(tl.scroll + 1);
      await screenshot(page, shot);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('keeps arrows and Space for the transport after a dropdown and a button, and its legend names every glyph', async () => {
    const { page, errors } = await openPage(app, '?s=acks1-leader-crash&seed=1', { width: 1280, height: 720 });
    await waitLoaded(page, 1);
    const misr = page.locator('[data-testid=set-A-minisr]');
    const before = await misr.inputValue();
    // Open the dropdown, leave it with Esc, then step: time moves, the setting stays, nothing reruns.
    await misr.focus();
    await page.keyboard.press('Escape');
    const cursor = Number(await status(page, 'cursor'));
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((c) => Number(document.querySelector('#status')!.getAttribute('data-cursor')) === c + 1, cursor);
    expect(await misr.inputValue()).toBe(before);
    // Even a focused select gives its arrows to the transport.
    await misr.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((c) => Number(document.querySelector('#status')!.getAttribute('data-cursor')) === c + 2, cursor);
    expect(await misr.inputValue()).toBe(before);
    expect(await status(page, 'loads')).toBe('1');
    // A button clicked last does not take Space: it plays and pauses.
    await page.click('[data-testid=tab-events]');
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelector('[data-testid=play]')?.textContent === 'Pause');
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelector('[data-testid=play]')?.textContent === 'Play');
    expect(await page.locator('#side-events').isVisible()).toBe(true);

    // Every kind of marker the timeline draws has its glyph in the legend.
    const drawn = await page.$$eval('[data-testid=timeline] [data-testid=timeline-svg] [data-kind]', (ns) => [...new Set(ns.map((n) => n.getAttribute('data-kind')!))]);
    const listed = await page.$$eval('[data-testid=timeline] [data-testid=timeline-legend] [data-legend-kind]', (ns) => ns.map((n) => n.getAttribute('data-legend-kind')!));
    expect(drawn.length).toBeGreaterThan(2);
    await page.locator('[data-testid=timeline] [data-testid=timeline-legend]').scrollIntoViewIfNeeded();
    await page.locator('[data-testid=timeline] [data-testid=timeline-legend]').screenshot({ path: join(ARTIFACTS, 'ui-timeline-legend.png') });
    for (const k of drawn) expect(listed, `legend lists ${k}`).toContain(k);
    expect(errors).toEqual([]);
    await page.close();
  });
});
