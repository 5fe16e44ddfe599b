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
  it('hatches the records of aborted transactions, and a click outlines the whole transaction', async () => {
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', `${ID}.json`), 'utf8')) as ScenarioSpec;
    const node = runScenario(validateScenario(spec), { seed: 1 });
    // The aborted records, from the producer's own account of its aborted transactions and the leader's appends.
    const abortedValues = new Set(ofKind(node.trace, 'producer.txn').filter((e) => e.result === 'abort').flatMap((e) => e.values));
    const appends = ofKind(node.trace, 'replica.append').filter((e) => e.role === 'leader' && `${e.topic}-${e.partition}` === TP);
    const offsetOf = new Map<string, number>();
    for (const a of appends) (a.values ?? []).forEach((v, k) => v !== null && offsetOf.set(v, a.base + k));
    const lastAbort = appends.filter((a) => a.control === 'ABORT').at(-1)!;
    const { page, errors } = await openPage(app, `?s=${ID}&seed=1&p=${TP}`);
    await waitLoaded(page, 1);
    await setSlider(page, Math.ceil((lastAbort.t - node.startUs) / 1000) + 2);
    const view = page.locator('[data-testid=partition-A]');
    const svg = view.locator('[data-testid=partition-svg]');
    const start = Number(await svg.getAttribute('data-start'));
    const end = Number(await svg.getAttribute('data-end'));
    const leader = lastAbort.broker;
    const inWindow = (o: number) => o >= start && o < end;
    const leo = lastAbort.last + 1;
    const expected = [...abortedValues].map((v) => offsetOf.get(v)).filter((o): o is number => o !== undefined && o < leo && inWindow(o)).sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(0);
    const hatched = await view.locator(`rect.aborted[data-broker="${leader}"]`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-offset'))).sort((a, b) => a - b));
    expect(hatched).toEqual(expected);
    expect(await view.locator('rect.aborted').first().getAttribute('fill')).toMatch(/^url\(#abort-hatch-/);

    // A click on one aborted record outlines that transaction's records and its ABORT marker, and names it.
    const pick = expected.at(-1)!;
    await view.locator(`rect.cell[data-broker="${leader}"][data-offset="${pick}"]`).click();
    const txnOffsets = [...expected.filter((o) => o > lastAbort.base - 1 - 40 && o < lastAbort.base && !appends.some((a) => a.control !== undefined && a.base > o && a.base < lastAbort.base)), lastAbort.base];
    const outlined = () => view.locator(`rect.cell.txn-hl[data-broker="${leader}"]`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-offset'))).sort((a, b) => a - b));
    // (The click also chooses the record, which centres the window on it: compare within the window shown then.)
    const shownTxn = async () => {
      const [lo, hi] = [Number(await svg.getAttribute('data-start')), Number(await svg.getAttribute('data-end'))];
      return txnOffsets.filter((o) => o >= lo && o < hi).sort((a, b) => a - b);
    };
    await expect.poll(async () => JSON.stringify(await outlined()) === JSON.stringify(await shownTxn()) && (await outlined()).length > 1).toBe(true);
    const info = await view.locator('[data-testid=txn-selected]').textContent();
    expect(info).toContain('transactional.id ledger-1');
    expect(info).toContain(`producer id ${lastAbort.producerId}`);
    expect(info).toContain('aborted');
    await screenshot(page, 'transactions-aborted-hatched');
    // A second click on it lets go.
    await view.locator(`rect.cell[data-broker="${leader}"][data-offset="${pick}"]`).click();
    await expect.poll(() => view.locator('rect.cell.txn-hl').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('names the zombie producer\'s fenced epoch and the epoch that fenced it', async () => {
    const Z = 'txn-zombie-fenced';
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', `${Z}.json`), 'utf8')) as ScenarioSpec;
    const node = runScenario(validateScenario(spec), { seed: 1 });
    const fenced = ofKind(node.trace, 'producer.fenced')[0]!;
    // The new instance's InitProducerId bumped the epoch past the zombie's: that epoch fenced it.
    const init = ofKind(node.trace, 'producer.id').find((e) => e.transactionalId === fenced.transactionalId && e.node !== fenced.node && e.producerEpoch > fenced.producerEpoch && e.t <= fenced.t)!;
    expect(init).toBeDefined();
    const newer = init.producerEpoch;
    const { page, errors } = await openPage(app, `?s=${Z}&seed=1&p=invoices-0`);
    await waitLoaded(page, 1);
    const view = page.locator('[data-testid=partition-A]');
    // Before the fencing nothing is said; after it, the line names both epochs.
    await setSlider(page, Math.floor((fenced.t - node.startUs) / 1000) - 5);
    expect(await view.locator('[data-testid=txn-fence]').count()).toBe(0);
    await setSlider(page, Math.ceil((fenced.t - node.startUs) / 1000) + 2);
    const text = await view.locator('[data-testid=txn-fence]').first().textContent();
    expect(text).toContain(`transactional.id ${fenced.transactionalId}`);
    expect(text).toContain(`epoch ${fenced.producerEpoch} fenced by epoch ${newer}`);
    await screenshot(page, 'transactions-zombie-fenced');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a fenced zombie producer\'s client card names its fenced epoch on its one line', async () => {
    const { page, errors } = await openPage(app, `?s=txn-zombie-fenced&seed=1`);
    await waitLoaded(page, 1);
    await setSlider(page, Number(await page.getAttribute('[data-testid=time-slider]', 'max')));
    const fenced = page.locator('[data-testid=fenced-billing-a]');
    await fenced.waitFor();
    expect(await fenced.textContent()).toMatch(/^fenced: epoch \d+ → \d+$/);
    expect(await fenced.getAttribute('title')).toMatch(/^transactional\.id billing: epoch \d+ fenced by epoch \d+ \(PRODUCER_FENCED\)$/);
    // Still one line: the card body is shorter than two lines of its text.
    const body = page.locator('[data-host=billing-a] .card-body');
    const [height, fontSize] = await body.evaluate((b) => [b.getBoundingClientRect().height, parseFloat(getComputedStyle(b).fontSize)]);
    expect(height!).toBeLessThan(2 * fontSize!);
    expect(errors).toEqual([]);
    await page.close();
  });
});
