import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import { Process } from '../../../sim/world/process';
import { runScenario } from '../../../sim/scenario/runner';
import { validateScenario } from '../../../sim/scenario/validate';

/** Sends what it is told to and keeps every reply. */
class Probe extends Process {
  readonly replies: { from: string; msg: { type: string; error?: string } }[] = [];
  onMessage(from: string, msg: unknown): void {
    this.replies.push({ from, msg: msg as { type: string; error?: string } });
  }
}

describe('unclaimed messages at brokers and controllers', () => {
  it('an unknown request gets an INVALID_REQUEST response; a response nobody waits for gets nothing', () => {
    const r = runScenario(
      validateScenario({ id: 'probe', duration: '1s', quiet: '0s', cluster: { controllers: 1, brokers: 1 }, topics: [{ name: 't', partitions: 1, replicationFactor: 1 }] }),
    );
    const world = r.cluster.world;
    const host = world.addHost({ id: 'probe', zone: 'zone-a', tags: ['client'] });
    let probe: Probe | undefined;
    host.addProcess({ id: 'probe', create: (ctx) => (probe = new Probe('probe', ctx)) });
    host.start();
    for (const to of ['broker-1', 'controller-1']) {
      probe!.send(to, { type: 'Frobnicate', correlationId: 1 });
      probe!.send(to, { type: 'BrokerHeartbeatResponse', correlationId: 2, error: 'NONE' });
      probe!.send(to, { type: 'FetchResponse', correlationId: 3, error: 'NONE', partitions: [] });
    }
    world.runUntil(world.now + ms(500));
    expect(probe!.replies.map((x) => [x.from, x.msg.type, x.msg.error])).toEqual([
      ['broker-1', 'FrobnicateResponse', 'INVALID_REQUEST'],
      ['controller-1', 'FrobnicateResponse', 'INVALID_REQUEST'],
    ]);
  });
});
