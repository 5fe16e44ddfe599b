// The operator panel in Chromium: the metrics as charts on the shared cursor, the alert intervals shaded
// there and on the timeline, and at the cursor the describe tables `kafkasim describe --at` prints.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAt } from '../../sim/check/describeAt';
import { alertReports } from '../../sim/check/alertChecks';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';
import { browserAvailable, openPage, ROOT, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const ID = 'alert-under-min-isr-before-loss';

describe.skipIf(!browserAvailable())('the operator panel in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('charts the metrics, shades the alerts, and shows the describe tables of the moment under the cursor', async () => {
    const node = runScenario(validateScenario(JSON.parse(readFileSync(join(ROOT, 'scenarios', `${ID}.json`), 'utf8')) as ScenarioSpec), { seed: 1 });
    const alerts = alertReports(node.trace, node.startUs);
    const { page, errors } = await openPage(app, `?s=${ID}&seed=1&view=operator`);
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(node.traceHash);
    await page.waitForSelector('#operator-pane:not([hidden])');
    for (const key of ['UnderMinIsrPartitionCount', 'OfflinePartitionsCount', 'MessagesInPerSec']) {
      await expect(page.locator(`[data-testid="chart-${key}"] path.op-line`).count()).resolves.toBe(1);
    }
    // Each firing is shaded on its series' chart and on the timeline.
    const firings = alerts.reduce((n, a) => n + a.firings.length, 0);
    expect(firings).toBe(2);
    await expect(page.locator('[data-testid="chart-UnderMinIsrPartitionCount"] [data-testid=chart-alert]').count()).resolves.toBe(1);
    await expect(page.locator('[data-testid="chart-OfflinePartitionsCount"] [data-testid=chart-alert]').count()).resolves.toBe(1);
    await expect(page.locator('[data-testid=timeline-alert]').count()).resolves.toBe(2);
    await expect(page.locator('[data-testid=alert-rule]').count()).resolves.toBe(2);

    // Jump to the moment the offline alert fired: the tables there are describe --at's.
    const offline = alerts.find((a) => a.name === 'offline')!.firings[0]!;
    await page.locator('[data-testid=alert-rule]', { hasText: 'offline' }).locator('.time-link').first().click();
    await page.waitForFunction((i) => document.getElementById('status')?.dataset['cursor'] === String(i), node.trace.findLastIndex((e) => e.t <= node.startUs + offline.firedUs));
    const cli = describeAt(node.trace, offline.firedUs).topics.find((p) => p.topic === 'payments')!;
    expect(cli.leader).toBe(-1); // the partition is offline then
    const row = (await page.locator('[data-testid=describe-topics] tbody tr').first().locator('td').allTextContents()).map((c) => c.trim());
    expect(row.slice(0, 5)).toEqual(['payments', '0', 'none', String(cli.leaderEpoch), cli.isr.join(',') || '-']);
    await expect(page.locator('[data-testid=describe-quorum] td').first().textContent()).resolves.toBe(describeAt(node.trace, offline.firedUs).quorum.leaderId);
    await expect(page.locator('[data-testid="chart-OfflinePartitionsCount"] .op-value').textContent()).resolves.toBe('= 1');
    await screenshot(page, 'operator-panel');
    expect(errors).toEqual([]);
    await page.close();
  });
});
