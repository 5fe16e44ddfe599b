import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ofKind } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, setSlider, startApp, waitLoaded, type AppServer } from './support';

// The partition view draws transaction markers as their own cells and the last stable offset beside the HW.
const ID = 'txn-read-committed-hides-aborted';
const TP = 'payments-0';

describe.skipIf(!browserAvailable())('transactions in the partition view (Chromium)', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows COMMIT and ABORT markers as marker cells, and the LSO line while a transaction holds it', async () => {
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', `${ID}.json`), 'utf8')) as ScenarioSpec;
    const node = runScenario(validateScenario(spec), { seed: 1 });
    const markers = ofKind(node.trace, 'replica.append').filter((e) => e.control !== undefined && e.role === 'leader' && `${e.topic}-${e.partition}` === TP);
    expect(new Set(markers.map((m) => m.control))).toEqual(new Set(['COMMIT', 'ABORT']));
    const lsos = ofKind(node.trace, 'replica.lso').filter((e) => `${e.topic}-${e.partition}` === TP);
    // A moment an open transaction holds the LSO below the HW for a while (the next LSO move is later), after
    // both kinds of marker have been written close before it.
    const near = (t: number, lso: number) => markers.filter((m) => m.t <= t && m.base >= lso - 15);
    const k = lsos.findIndex(
      (e, i) => e.firstUnstableOffset !== null && e.lso < e.hw && (lsos[i + 1]?.t ?? Infinity) - e.t > 20_000 && new Set(near(e.t, e.lso).map((m) => m.control)).size === 2,
    );
    expect(k).toBeGreaterThanOrEqual(0);
    const pinned = lsos[k]!;

    const { page, errors } = await openPage(app, `?s=${ID}&seed=1&p=${TP}`);
    await waitLoaded(page, 1);
    await setSlider(page, Math.ceil((pinned.t - node.startUs) / 1000) + 2);
    const view = page.locator('[data-testid=partition-A]');
    await view.locator('[data-testid=lso]').waitFor();
    expect(Number(await view.locator('[data-testid=lso]').getAttribute('data-lso'))).toBe(pinned.lso);
    expect(Number(await view.locator('[data-testid=lso]').getAttribute('data-lso'))).toBeLessThan(Number(await view.locator('[data-testid=hw]').getAttribute('data-hw')));
    expect(await view.locator('line.lso').count()).toBe(1);
    // Markers written before that moment are marker cells with their letter, at their offsets.
    const before = near(pinned.t, pinned.lso);
    for (const m of before) {
      const cell = view.locator(`rect.cell.marker.${m.control!.toLowerCase()}[data-offset="${m.base}"]`);
      expect(await cell.count()).toBeGreaterThanOrEqual(1);
    }
    expect(await view.locator('text.marker').count()).toBeGreaterThan(0);
    await screenshot(page, 'transactions-partition');

    // At the end every transaction is decided: the LSO is the HW again, and no LSO line is drawn.
    await setSlider(page, Number(await page.getAttribute('[data-testid=time-slider]', 'max')));
    await expect(view.locator('[data-testid=lso]').count()).resolves.toBe(0);
    expect(await view.locator('line.lso').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
