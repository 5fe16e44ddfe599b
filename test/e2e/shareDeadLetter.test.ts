import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TraceEvent } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, waitLoaded, type AppServer } from './support';

const ID = 'share-group-poison-pill-dead-letter';

/** The share view draws the dead-letter flow of KIP-1191: ARCHIVING while the leader writes the pill to the DLQ topic, then ARCHIVED. */
describe.skipIf(!browserAvailable())('the share view of a dead-lettered poison pill in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows the pill ARCHIVING until its DLQ write, then ARCHIVED and dead-lettered, with the envelope on the timeline', async () => {
    const tr = runScenario(validateScenario(JSON.parse(readFileSync(join(ROOT, 'scenarios', `${ID}.json`), 'utf8')) as ScenarioSpec), { seed: 1 }).trace as TraceEvent[];
    const toArchiving = tr.find((e) => e.kind === 'share.transition' && e.to === 'ARCHIVING')!;
    const written = tr.find((e) => e.kind === 'share.dead-letter')!;
    const archived = tr.find((e) => e.kind === 'share.transition' && e.to === 'ARCHIVED' && e.cause === 'dead-letter')!;
    if (toArchiving.kind !== 'share.transition' || written.kind !== 'share.dead-letter' || archived.kind !== 'share.transition') throw new Error('unreachable');
    const tp = `${written.topic}-${written.partition}`;
    expect([toArchiving.offsets, archived.offsets]).toEqual([[written.offset], [written.offset]]);
    expect(toArchiving.seq < written.seq && written.seq < archived.seq).toBe(true);
    const cell = `[data-testid=share-pane] [data-testid=share-cell][data-tp="${tp}"][data-offset="${written.offset}"]`;

    // From the gallery the lesson opens on the share view.
    const { page, errors } = await openPage(app, `?s=${ID}&seed=1&view=share&e=${toArchiving.seq}`, { width: 1280, height: 720 });
    await waitLoaded(page, 1);
    // ARCHIVING holds SPSO at the pill while the leader writes it.
    await expect(page.locator(cell).getAttribute('data-state')).resolves.toBe('ARCHIVING');
    await expect(page.locator(cell).getAttribute('data-delivery')).resolves.toBe('5');
    await expect(page.locator(`[data-testid=share-pane] [data-testid=share-partition][data-tp="${tp}"]`).getAttribute('data-spso')).resolves.toBe(String(written.offset));
    await screenshot(page, 'share-dlq-archiving');

    await page.goto(`${app.url}?s=${ID}&seed=1&view=share&e=${archived.seq}`);
    await waitLoaded(page, 1);
    await expect(page.locator(cell).getAttribute('data-state')).resolves.toBe('ARCHIVED');
    await expect(page.locator(cell).getAttribute('data-dead-letter')).resolves.toBe(written.dlqTopic);
    await expect(page.locator(`[data-testid=share-pane] [data-testid=share-partition][data-tp="${tp}"]`).getAttribute('data-spso')).resolves.toBe(String(written.offset + 1));
    await page.locator(cell).hover();
    await expect(page.locator('[data-testid=tooltip]').textContent()).resolves.toContain(`dead-lettered to ${written.dlqTopic}`);
    // One envelope on the timeline, no separate archive glyph for the same record, and the legend names it.
    expect(await page.locator('[data-testid=timeline] [data-testid=timeline-svg] [data-kind=dead-letter]').count()).toBe(1);
    expect(await page.locator('[data-testid=timeline] [data-testid=timeline-svg] [data-kind=archived]').count()).toBe(0);
    expect(await page.locator('[data-testid=timeline] [data-testid=timeline-legend] [data-legend-kind=dead-letter]').count()).toBe(1);
    await screenshot(page, 'share-dlq-archived');
    expect(errors).toEqual([]);
    await page.close();
  });
});
