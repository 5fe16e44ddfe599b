import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ofKind } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const ACKS1 = 'acks1-leader-crash';

/** Guided mode (issue 21, item 1): captions stop playback at the event they tell of, and the screen agrees with them. */
describe.skipIf(!browserAvailable())('guided scenarios in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stops at each caption, at its event, with the cluster as the caption says, and Continue goes on', async () => {
    const node = runScenario(validateScenario(JSON.parse(readFileSync(join(ROOT, 'scenarios', `${ACKS1}.json`), 'utf8')) as ScenarioSpec), { seed: 1 });
    const captions = ofKind(node.trace, 'caption');
    const election = node.trace.find((e) => e.seq === captions[2]!.about)!;
    expect(election.kind).toBe('controller.election');
    const newLeader = (election as unknown as { leader: number }).leader;
    const oldLeader = (election as unknown as { previousLeader: number }).previousLeader;

    const { page, errors } = await openPage(app, `?s=${ACKS1}&seed=1`);
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(node.traceHash);
    await page.selectOption('[data-testid=speed]', '10');
    await page.keyboard.press('Space');

    const waitAt = async (k: number) => {
      // Playback runs on the wall clock (10×): a loaded machine draws fewer frames, so allow it time.
      await page.waitForSelector(`#caption-bar[data-waiting="true"][data-caption="${k}"]`, { timeout: 90_000 });
      // Stopped exactly on the caption's own event: the cursor is the caption's index in the trace.
      expect(Number(await status(page, 'cursor'))).toBe(captions[k]!.seq);
      await expect(page.locator('[data-testid=play]').textContent()).resolves.toBe('Play');
      await expect(page.locator('[data-testid=caption-text]').textContent()).resolves.toBe(captions[k]!.text);
    };
    await waitAt(0);
    // The story names brokers as the cards do.
    expect(captions[0]!.text).toContain(`broker ${oldLeader}`);
    await expect(page.locator(`[data-host="broker-${oldLeader}"] .card-title`).textContent()).resolves.toBe(`broker ${oldLeader}`);
    await page.click('[data-testid=caption-continue]');
    await waitAt(1);
    await expect(page.locator(`[data-testid="state-broker-${oldLeader}"]`).textContent()).resolves.toBe('crashed');
    // Space continues too (the Continue button it last pressed does not take it).
    await page.keyboard.press('Space');
    await waitAt(2);
    // "elected a follower": at this moment the partition view already shows the new leader, and the card the
    // caption names pulses.
    await expect(page.locator('[data-testid=partition-A] [data-testid=partition-stats]').textContent()).resolves.toContain(`leader broker ${newLeader}`);
    expect(await page.locator(`[data-host="broker-${newLeader}"].pulse`).count()).toBe(1);
    expect(await page.locator(`[data-testid=partition-A] g.pv-row.pulse[data-testid="replica-row-${newLeader}"]`).count()).toBe(1);
    await screenshot(page, 'guided-election');

    // p / n step between captions without playing.
    await page.keyboard.press('p');
    await page.waitForSelector('#caption-bar[data-caption="1"]');
    expect(Number(await status(page, 'cursor'))).toBe(captions[1]!.seq);
    await page.keyboard.press('n');
    await page.keyboard.press('n');
    await page.waitForSelector('#caption-bar[data-caption="3"]');
    await expect(page.locator('[data-testid=partition-A] [data-testid=partition-stats]').textContent()).resolves.toContain(`leader broker ${newLeader}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
