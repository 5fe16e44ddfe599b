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


/** How much each pane overflows (px): across must be 0 everywhere; down is allowed where the pane scrolls. */
interface PaneFigure {
  readonly pane: string;
  readonly across: number;
  readonly down: number;
  readonly scrolls: boolean;
}

async function paneFigures(page: Page): Promise<PaneFigure[]> {
  return page.$$eval('#stage, #panes > .pane, .pane > .cluster, .pv, #side .side-panel, #timeline .tl-pane', (ns) =>
    ns
      .filter((n) => (n as HTMLElement).offsetParent !== null)
      .map((n) => {
        const s = getComputedStyle(n);
        const pane = `${n.id ? `#${n.id}` : `.${[...n.classList].join('.')}`}${(n as HTMLElement).dataset['pane'] ? `[${(n as HTMLElement).dataset['pane']}]` : ''}${n.parentElement?.dataset['pane'] ? `[${n.parentElement.dataset['pane']}]` : ''}`;
        return { pane, across: n.scrollWidth - n.clientWidth, down: n.scrollHeight - n.clientHeight, scrolls: /(auto|scroll)/.test(s.overflowY) };
      }),
  );
}

/**
 * Elements whose box is cut by the nearest ancestor that hides its overflow (an ancestor that scrolls lets you reach
 * them, so it ends the search). SVG content is judged against its svg element.
 */
async function cutBoxes(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const name = (n: Element) => `${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ''}${n.getAttribute('class') ? `.${n.getAttribute('class')!.trim().split(/\s+/).join('.')}` : ''}${n.getAttribute('data-testid') ? `[${n.getAttribute('data-testid')}]` : ''}`;
    for (const n of document.querySelectorAll('#app *')) {
      const b = n.getBoundingClientRect();
      if (b.width === 0 || b.height === 0) continue;
      if (n instanceof HTMLElement && n.offsetParent === null && getComputedStyle(n).position !== 'fixed') continue;
      for (let a = n.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.textOverflow === 'ellipsis') break;
        const x = s.overflowX;
        const y = s.overflowY;
        if (x === 'visible' && y === 'visible') continue;
        if (/(auto|scroll)/.test(x + y)) break;
        const r = a.getBoundingClientRect();
        const cut = Math.max(r.left - b.left, b.right - r.right, r.top - b.top, b.bottom - r.bottom);
        if (cut > 1.5) out.push(`${name(n)} cut ${Math.round(cut)}px by ${name(a)}`);
        break;
      }
    }
    return out;
  });
}

/** The replica rows of a partition pane that are wholly on screen without scrolling anything. */
async function rowsInView(page: Page, pane: 'A' | 'B'): Promise<{ rows: number; visible: number }> {
  return page.$eval(`[data-testid=partition-${pane}]`, (pv) => {
    const rows = [...pv.querySelectorAll('g.pv-row')];
    let visible = 0;
    for (const row of rows) {
      const b = row.getBoundingClientRect();
      let inside = b.bottom <= window.innerHeight && b.right <= window.innerWidth;
      for (let a = pv.parentElement; a && inside; a = a.parentElement) {
        if (getComputedStyle(a).overflowY === 'visible') continue;
        const r = a.getBoundingClientRect();
        inside = b.top >= r.top - 1 && b.bottom <= r.bottom + 1 && b.left >= r.left - 1 && b.right <= r.right + 1;
      }
      if (inside) visible++;
    }
    return { rows: rows.length, visible };
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
    const cases: [string, { width: number; height: number }, string, number][] = [
      // query, window, screenshot, the replica rows of pane A that must be on screen without scrolling
      ['?s=acks1-leader-crash&seed=1', { width: 1280, height: 720 }, 'layout-1280-acks1', 3],
      ['?s=acks1-leader-crash&seed=1&t=17208', { width: 1280, height: 720 }, 'layout-1280-acks1-election', 3],
      ['?s=courier-hub&seed=1', { width: 1400, height: 900 }, 'layout-1400-courier-hub', 3],
      ['?s=courier-hub&seed=1', { width: 1280, height: 720 }, 'layout-1280-courier-hub', 3],
      ['?s=acks1-leader-crash&seed=1&compare=1&b=producer.acks%3Dall', { width: 1400, height: 900 }, 'layout-1400-compare', 3],
      ['?s=acks1-leader-crash&seed=1&compare=1&b=producer.acks%3Dall', { width: 1280, height: 720 }, 'layout-1280-compare', 2],
    ];
    for (const [query, viewport, shot, rowsWanted] of cases) {
      const { page, errors } = await openPage(app, query, viewport);
      await waitLoaded(page, 1);
      const where = `${query} at ${viewport.width}×${viewport.height}`;
      expect(await clipped(page), where).toEqual([]);
      expect(await cutBoxes(page), where).toEqual([]);
      const figures = await paneFigures(page);
      console.log(`layout ${where}: ${figures.map((f) => `${f.pane} ${f.across}/${f.down}${f.scrolls ? '' : ' (fixed)'}`).join(', ')}`);
      for (const f of figures) {
        expect(f.across, `${where}: ${f.pane} overflows across`).toBeLessThanOrEqual(1);
        if (!f.scrolls) expect(f.down, `${where}: ${f.pane} overflows down and does not scroll`).toBeLessThanOrEqual(1);
      }
      // The stage itself never scrolls in the replicas view: each pane scrolls on its own, the cells stay put.
      const stage = figures.find((f) => f.pane === '#stage')!;
      expect(stage.down, `${where}: the stage scrolls`).toBeLessThanOrEqual(1);
      const inView = await rowsInView(page, 'A');
      console.log(`layout ${where}: ${inView.visible} of ${inView.rows} replica rows on screen`);
      expect(inView.visible, `${where}: replica rows on screen`).toBeGreaterThanOrEqual(Math.min(rowsWanted, inView.rows));
      // Every lane of the timeline and its legend can be scrolled to.
      const tl = await page.$eval('[data-testid=timeline]', (n) => ({ scroll: n.scrollHeight, legendBottom: (n.querySelector('.tl-legend') as HTMLElement).offsetTop + (n.querySelector('.tl-legend') as HTMLElement).offsetHeight }));
      expect(tl.legendBottom).toBeLessThanOrEqual(tl.scroll + 1);
      await screenshot(page, shot);
      if (shot === 'layout-1280-acks1') {
        // The measure itself can fail: a box cut by a parent that hides its overflow is found, one that scrolls is not.
        await page.evaluate(() => {
          const probe = (overflow: string, id: string) => {
            const box = document.createElement('div');
            box.id = id;
            box.style.cssText = `overflow:${overflow};width:50px;height:20px`;
            box.innerHTML = '<span style="display:inline-block;width:200px;height:10px"></span>';
            document.querySelector('#stage')!.prepend(box);
          };
          probe('hidden', 'probe-hidden');
          probe('auto', 'probe-auto');
        });
        const found = await cutBoxes(page);
        expect(found.filter((c) => c.includes('#probe-'))).toEqual([expect.stringMatching(/^span cut 150px by div#probe-hidden$/)]);
      }
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
