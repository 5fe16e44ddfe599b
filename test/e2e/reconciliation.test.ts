import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ofKind } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';
import { browserAvailable, openPage, ROOT, screenshot, startApp, waitLoaded, type AppServer } from './support';

// The groups view shows a KIP-848 reconciliation as the coordinator traced it (issue 18): each member's epoch and
// state, what it must still revoke and what it waits to receive, read off the same run in Node.

const ID = 'coordinator-failover-mid-reconciliation';

describe.skipIf(!browserAvailable())('the groups view of a KIP-848 group', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows member epochs, reconciliation states, partitions being revoked and partitions awaited', async () => {
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', `${ID}.json`), 'utf8')) as ScenarioSpec;
    const node = runScenario(validateScenario(spec), { seed: 1, hash: false });
    const members = ofKind(node.trace, 'group.consumer.member');
    // reader-4 joins the formed group: the first member told to revoke for it, and reader-4 waiting for what they release.
    const joins = ofKind(node.trace, 'group.member.join');
    const late = joins.find((e) => e.clientId === 'reader-4')!;
    const revoking = members.find((e) => e.t > late.t && e.state === 'UNREVOKED_PARTITIONS')!;
    const waiting = members.find((e) => e.memberId === late.memberId && e.state === 'UNRELEASED_PARTITIONS')!;
    expect(waiting.target.length).toBe(3);
    const clientOf = (memberId: string) => joins.find((e) => e.memberId === memberId)!.clientId;
    expect(revoking.revoking.length).toBeGreaterThan(0);

    // The cursor on the revocation: that member's row says so.
    const { page, errors } = await openPage(app, `?s=${ID}&seed=1&view=groups&e=${node.trace.indexOf(revoking)}`);
    await waitLoaded(page, 1);
    const table = page.locator(`[data-testid=reconciliation-payments]`);
    await table.waitFor();
    const row = (client: string) => table.locator('[data-testid=reconciliation-row]', { hasText: client });
    await expect(row(clientOf(revoking.memberId)).getAttribute('data-state')).resolves.toBe('UNREVOKED_PARTITIONS');
    await expect(row(clientOf(revoking.memberId)).locator('[data-testid=revoking]').textContent()).resolves.toBe(revoking.revoking.join(', '));
    await expect(row(clientOf(revoking.memberId)).textContent()).resolves.toContain(String(revoking.memberEpoch));
    await expect(page.locator('[data-testid=consumer-group-payments]').textContent()).resolves.toMatch(/group epoch \d+ · target assignment epoch \d+ \(uniform\)/);

    // Later, while the coordinator is down: the newcomer still waits for its three partitions.
    const crash = ofKind(node.trace, 'fault.start')[0]!;
    const t0 = ofKind(node.trace, 'scenario.start')[0]!.t;
    const outage = await openPage(app, `?s=${ID}&seed=1&view=groups&t=${(crash.t - t0) / 1000 + 1000}`);
    await page.close();
    const p2 = outage.page;
    await waitLoaded(p2, 1);
    const table2 = p2.locator(`[data-testid=reconciliation-payments]`);
    await table2.waitFor();
    const newcomer = table2.locator('[data-testid=reconciliation-row]', { hasText: clientOf(waiting.memberId) });
    await expect(newcomer.getAttribute('data-state')).resolves.toBe('UNRELEASED_PARTITIONS');
    await expect(newcomer.locator('[data-testid=receiving]').textContent()).resolves.toBe(waiting.target.join(', '));
    await screenshot(p2, 'groups-reconciliation');

    // At the end every member is STABLE at the group epoch and the group is reconciled.
    await p2.keyboard.press('End');
    await p2.waitForFunction(() => document.querySelector('[data-testid=consumer-group-payments]')?.textContent?.includes('reconciled') === true, undefined, { timeout: 10_000 });
    const states = await table2.locator('[data-testid=reconciliation-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-state')));
    expect(states).toEqual(['STABLE', 'STABLE', 'STABLE', 'STABLE']);
    expect(errors).toEqual([]);
    expect(outage.errors).toEqual([]);
    await p2.close();
  });

  it('compares the classic protocol beside KIP-848 on the same seed: the group figures side by side', async () => {
    const id = 'busy-group-join-classic-vs-kip848';
    const { page, errors } = await openPage(app, `?s=${id}&seed=1&compare=1&b=consumer.group.protocol%3Dconsumer`);
    await waitLoaded(page, 1);
    const table = page.locator('[data-testid=compare-table]');
    await table.waitFor();
    // A: the classic group stops all four members for the join; B: the same group under KIP-848 stops none.
    const cells = (check: string) => table.locator(`tr[data-check="${check}"] td`).allTextContents();
    await expect(cells('members.paused.classic')).resolves.toEqual(['members.paused.classic', '4', '0', 'better']);
    await expect(table.locator('tr[data-check="members.paused.classic"]').getAttribute('title')).resolves.toContain('group classic');
    expect(errors).toEqual([]);
    await page.close();
  });
});
