import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, openPage, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

/** The gallery as a course and expectations as the scenario's claims (issue 21, items 4 and 5). */
describe.skipIf(!browserAvailable())('the curriculum and the predictions in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('orders the gallery as a course with a start, filters it by chapter, hides internal tags, and opens a lesson on its view', async () => {
    const { page, errors } = await openPage(app);
    await page.waitForSelector('#gallery:not([hidden])');
    const chapters = await page.$$eval('#gallery section.chapter', (ns) => ns.map((n) => n.getAttribute('data-chapter')));
    const course = ['acks', 'isr', 'min-isr', 'elr', 'epochs', 'kraft', 'groups'];
    expect(chapters.slice(0, course.length)).toEqual(course);
    expect(chapters.indexOf('retention')).toBeGreaterThan(chapters.indexOf('groups'));
    if (chapters.includes('transactions')) expect(chapters.indexOf('transactions')).toBeGreaterThan(chapters.indexOf('retention'));
    // The guide's interview questions, each with the scenario that answers it.
    const q = page.locator('[data-testid=interview-q]', { hasText: '6 partitions and the group has 7 consumers' });
    await expect(q.getAttribute('data-scenario')).resolves.toBe('group-parallelism-6-of-7');
    expect(await page.locator('[data-testid=interview-q]').count()).toBeGreaterThanOrEqual(10);
    const first = page.locator('#gallery .scenario-card').first();
    await expect(first.getAttribute('data-scenario')).resolves.toBe('acks1-leader-crash');
    await expect(first.locator('[data-testid=start-here]').textContent()).resolves.toBe('Start here');
    expect(await page.locator('#gallery .scenario-card').count()).toBeGreaterThanOrEqual(40);
    expect(await page.locator('#gallery').textContent()).not.toContain('guide:');
    await screenshot(page, 'curriculum');
    await page.click('[data-testid=filter-groups]');
    expect(await page.locator('#gallery section.chapter:not([hidden])').count()).toBe(1);
    expect(await page.locator('[data-testid=chapter-groups]').isVisible()).toBe(true);
    // A consumer-group lesson opens on the groups view.
    await page.click('[data-testid="scenario-group-parallelism-6-of-7"]');
    await waitLoaded(page, 1);
    expect(await page.locator('#groups-pane').isVisible()).toBe(true);
    expect(await page.locator('#panes').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('states what the scenario predicts, and frames a change tried from the lesson as an experiment', async () => {
    const { page, errors } = await openPage(app, '?s=acks1-leader-crash&seed=1&side=learn');
    await waitLoaded(page, 1);
    const lesson = (await page.locator('[data-testid=lesson]').textContent()) ?? '';
    // A browser user is not told to rerun with --set: the hint is a button.
    expect(lesson).not.toContain('--set');
    await expect(page.locator('[data-testid=try-set]').first().textContent()).resolves.toBe('try producer.acks=all ▶');
    // The courier-hub glossary belongs to the courier-hub story; the words this story uses are listed.
    expect(await page.locator('[data-testid=glossary]').count()).toBe(0);
    await expect(page.locator('[data-testid=terms]').textContent()).resolves.toContain('acks');
    await page.click('[data-testid=tab-checks]');
    await expect(page.locator('#side-checks h3').first().textContent()).resolves.toBe('The scenario predicts');
    await expect(page.locator('#side-checks [data-testid=prediction]').first().textContent()).resolves.toContain('acknowledged writes are lost — it happened');

    // Try the lesson's change: A as written beside B with acks=all.
    await page.click('[data-testid=tab-learn]');
    await page.locator('[data-testid=try-set]').first().click();
    await waitLoaded(page, 2);
    expect(await status(page, 'hash-b')).not.toBe(await status(page, 'hash'));
    await page.click('[data-testid=tab-checks]');
    await expect(page.locator('[data-testid=verdict-B]').textContent()).resolves.toContain('no acknowledged write lost');
    await expect(page.locator('[data-testid=experiment-B]').textContent()).resolves.toContain('You changed producer.acks=all');
    // The safe outcome is the experiment's result, not a red failure.
    expect(await page.locator('#side-checks .expectations li.bad').count()).toBe(0);
    expect(await page.locator('#side-checks .expectations li.differs').count()).toBeGreaterThan(0);
    await screenshot(page, 'predictions-experiment');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps what a run comes to hidden in spoiler-free mode until its end', async () => {
    const { page, errors } = await openPage(app, '?s=acks1-leader-crash&seed=1&ns=1');
    await waitLoaded(page, 1);
    expect(await page.locator('[data-testid=verdict-A]').isVisible()).toBe(false);
    expect(await page.locator('[data-testid=spoiler-note]').isVisible()).toBe(true);
    await page.keyboard.press('End');
    await page.waitForFunction(() => !document.body.classList.contains('spoilers-hidden'));
    await expect(page.locator('[data-testid=verdict-A]').textContent()).resolves.toMatch(/acknowledged writes lost/);
    expect(await page.locator('[data-testid=verdict-A]').isVisible()).toBe(true);
    expect(await page.locator('[data-testid=spoiler-note]').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });
});
