import { describe, expect, it } from 'vitest';
import {
  activateHeartbeatStates,
  calculateNextBrokerState,
  currentBrokerState,
  findOneStaleBroker,
  lowestActiveOffset,
  maybeFenceOneStaleBroker,
  maybeUpdateControlledShutdownOffset,
  newHeartbeatState,
  processBrokerHeartbeat,
  processExpiredBrokerHeartbeat,
  staleBrokerCheckIntervalMs,
  touchBroker,
  type BrokerHeartbeatState,
} from '../../../sim/kafka/controller/rules/brokerHeartbeat';
import { KAFKA_CONTROLLER_TIMER_DEFAULTS } from '../../../sim/kafka/controller/rules/controllerConfigs';
import { ms } from '../../../sim/core/time';
import { TestCluster } from './testCluster';

const hb = (o: Partial<{ currentMetadataOffset: number; wantFence: boolean; wantShutDown: boolean }> = {}) => ({
  currentMetadataOffset: 100,
  wantFence: false,
  wantShutDown: false,
  ...o,
});

describe('calculateNextBrokerState [BrokerHeartbeatManager.calculateNextBrokerState]', () => {
  it('FENCED: unfenced once caught up to the registration offset and not asking for fencing', () => {
    expect(calculateNextBrokerState('FENCED', hb({ currentMetadataOffset: 49 }), 50, false, -1, 0)).toBe('FENCED');
    expect(calculateNextBrokerState('FENCED', hb({ currentMetadataOffset: 50 }), 50, false, -1, 0)).toBe('UNFENCED');
    expect(calculateNextBrokerState('FENCED', hb({ currentMetadataOffset: 50, wantFence: true }), 50, false, -1, 0)).toBe('FENCED');
    expect(calculateNextBrokerState('FENCED', hb({ wantShutDown: true }), 50, true, -1, 0)).toBe('SHUTDOWN_NOW');
  });

  it('UNFENCED: fence, shutdown now, or controlled shutdown while leading', () => {
    expect(calculateNextBrokerState('UNFENCED', hb(), 50, true, -1, 0)).toBe('UNFENCED');
    expect(calculateNextBrokerState('UNFENCED', hb({ wantFence: true }), 50, true, -1, 0)).toBe('FENCED');
    expect(calculateNextBrokerState('UNFENCED', hb({ wantFence: true, wantShutDown: true }), 50, true, -1, 0)).toBe('SHUTDOWN_NOW');
    expect(calculateNextBrokerState('UNFENCED', hb({ wantShutDown: true }), 50, true, -1, 0)).toBe('CONTROLLED_SHUTDOWN');
    expect(calculateNextBrokerState('UNFENCED', hb({ wantShutDown: true }), 50, false, -1, 0)).toBe('SHUTDOWN_NOW');
  });

  it('CONTROLLED_SHUTDOWN: SHUTDOWN_NOW once it leads nothing and the lowest active offset reached its offset', () => {
    expect(calculateNextBrokerState('CONTROLLED_SHUTDOWN', hb({ wantShutDown: true }), 50, true, 80, 1000)).toBe('CONTROLLED_SHUTDOWN');
    expect(calculateNextBrokerState('CONTROLLED_SHUTDOWN', hb({ wantShutDown: true }), 50, false, 80, 79)).toBe('CONTROLLED_SHUTDOWN');
    expect(calculateNextBrokerState('CONTROLLED_SHUTDOWN', hb({ wantShutDown: true }), 50, false, 80, 80)).toBe('SHUTDOWN_NOW');
    expect(calculateNextBrokerState('CONTROLLED_SHUTDOWN', hb({ wantShutDown: true }), 50, false, 80, Infinity)).toBe('SHUTDOWN_NOW');
  });
});

describe("BrokerHeartbeatManagerTest's cases, on our rules", () => {
  // Six brokers as in Kafka's testCalculateNextBrokerState: 0 and 4 fenced, 1 lagging at offset 98, 5 in
  // controlled shutdown since offset 99. The table below is Kafka's expected (current, next) pairs.
  const touched = (id: number, fenced: boolean, offset: number): BrokerHeartbeatState => ({ ...newHeartbeatState(id, 1, 0, fenced), metadataOffset: offset });
  const cluster = (): BrokerHeartbeatState[] => [
    touched(0, true, 100),
    touched(1, false, 98),
    touched(2, false, 100),
    touched(3, false, 100),
    touched(4, true, 100),
    maybeUpdateControlledShutdownOffset(touched(5, false, 99), 99),
  ];
  const next = (states: BrokerHeartbeatState[], id: number, req: Partial<{ wantShutDown: boolean; wantFence: boolean; currentMetadataOffset: number }>, leads: boolean) => {
    const s = states.find((x) => x.brokerId === id)!;
    const current = currentBrokerState(s);
    return [current, calculateNextBrokerState(current, { currentMetadataOffset: 0, wantFence: false, wantShutDown: false, ...req }, 100, leads, s.controlledShutdownOffset, lowestActiveOffset(states))];
  };

  it('testCalculateNextBrokerState', () => {
    const states = cluster();
    expect(lowestActiveOffset(states)).toBe(98);
    expect(next(states, 0, { wantShutDown: true }, false)).toEqual(['FENCED', 'SHUTDOWN_NOW']);
    expect(next(states, 0, { currentMetadataOffset: 100 }, false)).toEqual(['FENCED', 'UNFENCED']);
    expect(next(states, 0, { currentMetadataOffset: 50 }, false)).toEqual(['FENCED', 'FENCED']);
    expect(next(states, 0, { wantFence: true }, false)).toEqual(['FENCED', 'FENCED']);
    expect(next(states, 1, { wantShutDown: true }, true)).toEqual(['UNFENCED', 'CONTROLLED_SHUTDOWN']);
    expect(next(states, 1, { wantShutDown: true }, false)).toEqual(['UNFENCED', 'SHUTDOWN_NOW']);
    expect(next(states, 1, {}, false)).toEqual(['UNFENCED', 'UNFENCED']);
    expect(next(states, 5, { wantShutDown: true }, true)).toEqual(['CONTROLLED_SHUTDOWN', 'CONTROLLED_SHUTDOWN']);
    // Broker 1 has not seen offset 99 yet: broker 5 waits for it ...
    expect(next(states, 5, { wantShutDown: true }, false)).toEqual(['CONTROLLED_SHUTDOWN', 'CONTROLLED_SHUTDOWN']);
    // ... until broker 1 is fenced (manager.fence(1)): then nobody active lags behind 99.
    const fenced1 = states.map((s) => (s.brokerId === 1 ? touchBroker(s, 0, true, s.metadataOffset) : s));
    expect(lowestActiveOffset(fenced1)).toBe(100);
    expect(next(fenced1, 5, { wantShutDown: true }, false)).toEqual(['CONTROLLED_SHUTDOWN', 'SHUTDOWN_NOW']);
    expect(next(fenced1, 5, { wantShutDown: true }, true)).toEqual(['CONTROLLED_SHUTDOWN', 'CONTROLLED_SHUTDOWN']);
  });

  it('testControlledShutdownOffsetIsOnlyUpdatedOnce; a fenced broker cannot enter controlled shutdown', () => {
    const two = touched(2, false, 100);
    expect(two.controlledShutdownOffset).toBe(-1);
    const once = maybeUpdateControlledShutdownOffset(two, 98);
    expect(once.controlledShutdownOffset).toBe(98);
    expect(maybeUpdateControlledShutdownOffset(once, 99).controlledShutdownOffset).toBe(98);
    expect(() => maybeUpdateControlledShutdownOffset(touched(3, true, 100), 101)).toThrow(/fenced/);
    // Fencing (touch with fenced) takes the broker out of controlled shutdown.
    expect(touchBroker(once, 5, true, 100).controlledShutdownOffset).toBe(-1);
  });
});

describe('lowestActiveOffset', () => {
  it('is the lowest offset of unfenced brokers that are not shutting down; +Infinity when none', () => {
    const s = (id: number, fenced: boolean, off: number, cs = -1): BrokerHeartbeatState => ({ ...newHeartbeatState(id, 1, 0, fenced), metadataOffset: off, controlledShutdownOffset: cs });
    expect(lowestActiveOffset([s(1, false, 30), s(2, true, 5), s(3, false, 10, 99), s(4, false, 20)])).toBe(20);
    expect(lowestActiveOffset([s(1, true, 30)])).toBe(Infinity);
  });
});

describe('stale brokers', () => {
  const session = KAFKA_CONTROLLER_TIMER_DEFAULTS.brokerSessionTimeoutMs;

  it('defaults: heartbeat 2000 ms, session 9000 ms, check every max(1 ms, 9000/8) = 1125 ms', () => {
    expect(KAFKA_CONTROLLER_TIMER_DEFAULTS.brokerHeartbeatIntervalMs).toBe(2000);
    expect(session).toBe(9000);
    expect(staleBrokerCheckIntervalMs(9000)).toBe(1125);
    expect(staleBrokerCheckIntervalMs(4)).toBe(1);
  });

  it('stale means lastContact + session < now (strictly), and only one is chosen: the oldest, then the lowest id', () => {
    const a = newHeartbeatState(2, 1, ms(1000), false);
    const b = newHeartbeatState(1, 1, ms(1000), false);
    const c = newHeartbeatState(3, 1, ms(500), true); // fenced: never chosen
    expect(findOneStaleBroker([a, b, c], ms(10_000), session)).toBeUndefined();
    expect(findOneStaleBroker([a, b, c], ms(10_000) + 1, session)?.brokerId).toBe(1);
    const older = newHeartbeatState(5, 1, ms(999), false);
    expect(findOneStaleBroker([a, b, older], ms(20_000), session)?.brokerId).toBe(5);
  });

  it('maybeFenceOneStaleBroker fences one broker per pass and ignores sessions of an old epoch', () => {
    const c = new TestCluster({ elr: false });
    for (const id of [1, 2, 3]) {
      c.startBroker(id);
      c.unfence(id);
    }
    c.createTopic('t', [[1, 2, 3]]);
    let states = activateHeartbeatStates(c.image, 0);
    expect(states.map((s) => [s.brokerId, s.fenced])).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
    states = states.map((s) => (s.brokerId === 3 ? { ...s, lastContact: ms(5000) } : s));
    const now = ms(9001);
    const first = maybeFenceOneStaleBroker(c.image, states, now, session);
    expect(first.fenced?.brokerId).toBe(1);
    c.apply(first);
    states = states.map((s) => (s.brokerId === first.fenced!.brokerId ? first.fenced! : s));
    expect(c.partition('t')).toMatchObject({ leader: 2, isr: [2, 3] });
    const second = maybeFenceOneStaleBroker(c.image, states, now, session);
    expect(second.fenced?.brokerId).toBe(2);
    // A session left over from a previous epoch of broker 3 is not a reason to fence the current one.
    const oldEpoch = states.map((s) => (s.brokerId === 3 ? { ...s, brokerEpoch: -5, lastContact: 0 } : s)).filter((s) => s.brokerId === 3);
    expect(maybeFenceOneStaleBroker(c.image, oldEpoch, now, session).fenced).toBeUndefined();
  });
});

describe('processBrokerHeartbeat [ReplicationControlManager.processBrokerHeartbeat]', () => {
  function started(): { c: TestCluster; states: Map<number, BrokerHeartbeatState> } {
    const c = new TestCluster({ elr: true });
    const states = new Map<number, BrokerHeartbeatState>();
    for (const id of [1, 2]) {
      c.startBroker(id);
      const b = c.image.broker(id)!;
      states.set(id, newHeartbeatState(id, b.epoch, 0, true));
    }
    return { c, states };
  }

  function beat(c: TestCluster, states: Map<number, BrokerHeartbeatState>, id: number, now: number, o: Partial<{ currentMetadataOffset: number; wantFence: boolean; wantShutDown: boolean }> = {}) {
    const b = c.image.broker(id)!;
    const out = processBrokerHeartbeat(c.image, states.get(id), { brokerId: id, brokerEpoch: b.epoch, currentMetadataOffset: c.nextOffset - 1, wantFence: false, wantShutDown: false, ...o }, now, lowestActiveOffset(states.values()));
    c.apply(out);
    if (out.state) states.set(id, out.state);
    return out;
  }

  it('a wrong broker epoch: STALE_BROKER_EPOCH, nothing changes', () => {
    const { c, states } = started();
    const out = processBrokerHeartbeat(c.image, states.get(1), { brokerId: 1, brokerEpoch: 12345, currentMetadataOffset: 0, wantFence: false, wantShutDown: false }, 0, 0);
    expect(out.response.error).toBe('STALE_BROKER_EPOCH');
    expect(out.records).toEqual([]);
    expect(out.state).toBeUndefined();
  });

  it('fenced until caught up with its registration, then unfenced with an unfence record', () => {
    const { c, states } = started();
    const reg = c.image.registerBrokerRecordOffset(1)!;
    const behind = beat(c, states, 1, ms(2000), { currentMetadataOffset: reg - 1 });
    expect(behind.response).toEqual({ error: 'NONE', isCaughtUp: false, isFenced: true, inControlledShutdown: false, shouldShutDown: false });
    expect(behind.records).toEqual([]);
    const caughtUp = beat(c, states, 1, ms(4000), { currentMetadataOffset: reg });
    expect(caughtUp.transition).toEqual({ from: 'FENCED', to: 'UNFENCED' });
    expect(caughtUp.records[0]).toMatchObject({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, fenced: false });
    expect(caughtUp.response.isFenced).toBe(false);
    expect(c.image.broker(1)!.fenced).toBe(false);
    expect(states.get(1)).toMatchObject({ lastContact: ms(4000), fenced: false, metadataOffset: reg });
  });

  it('controlled shutdown: moves leaders away, waits for the active brokers to catch up, then SHUTDOWN_NOW fences', () => {
    const { c, states } = started();
    beat(c, states, 1, 1);
    beat(c, states, 2, 1);
    c.createTopic('t', [[1, 2]]);
    beat(c, states, 2, 2); // broker 2 reports the offset after the topic
    const cs = beat(c, states, 1, 3, { wantShutDown: true });
    expect(cs.transition).toEqual({ from: 'UNFENCED', to: 'CONTROLLED_SHUTDOWN' });
    expect(cs.response).toMatchObject({ inControlledShutdown: true, shouldShutDown: false, isFenced: false });
    expect(c.partition('t')).toMatchObject({ leader: 2, isr: [2] });
    // The controller learns the end offset of the batch it wrote.
    const end = c.nextOffset - 1;
    states.set(1, maybeUpdateControlledShutdownOffset(states.get(1)!, end));
    // Broker 2 has not yet seen that batch: broker 1 must wait.
    const waiting = beat(c, states, 1, 4, { wantShutDown: true });
    expect(waiting.response.shouldShutDown).toBe(false);
    beat(c, states, 2, 5, { currentMetadataOffset: end });
    const done = beat(c, states, 1, 6, { wantShutDown: true });
    expect(done.transition).toEqual({ from: 'CONTROLLED_SHUTDOWN', to: 'SHUTDOWN_NOW' });
    expect(done.response).toMatchObject({ shouldShutDown: true, isFenced: true });
    expect(done.records.at(-1)).toMatchObject({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, fenced: true });
    expect(states.get(1)).toMatchObject({ fenced: true, controlledShutdownOffset: -1 });
  });

  it('a heartbeat that expired in the queue only refreshes the session', () => {
    const { c, states } = started();
    const s = states.get(1)!;
    const reg = c.image.registerBrokerRecordOffset(1)!;
    const next = processExpiredBrokerHeartbeat(c.image, s, { brokerId: 1, brokerEpoch: s.brokerEpoch, currentMetadataOffset: reg + 5, wantFence: false, wantShutDown: false }, ms(7000));
    // Caught up, yet still fenced: no unfencing from an expired heartbeat.
    expect(next).toEqual({ ...s, lastContact: ms(7000), metadataOffset: reg + 5 });
    expect(c.image.broker(1)!.fenced).toBe(true);
  });

  it('a controller becoming active tracks fenced brokers as fenced and restarts every session now', () => {
    const { c } = started();
    c.unfence(2);
    expect(activateHeartbeatStates(c.image, ms(50)).map((s) => [s.brokerId, s.fenced, s.lastContact])).toEqual([
      [1, true, ms(50)],
      [2, false, ms(50)],
    ]);
  });

  it('a broker that leads nothing is told to shut down at once', () => {
    const { c, states } = started();
    beat(c, states, 1, 1);
    const out = beat(c, states, 1, 2, { wantShutDown: true });
    expect(out.transition).toEqual({ from: 'UNFENCED', to: 'SHUTDOWN_NOW' });
    expect(out.response.shouldShutDown).toBe(true);
  });
});

describe('heartbeat rules at their edges', () => {
  const session = KAFKA_CONTROLLER_TIMER_DEFAULTS.brokerSessionTimeoutMs;
  const state = (over: Partial<BrokerHeartbeatState> = {}): BrokerHeartbeatState => ({ ...newHeartbeatState(1, 1, 0, false), ...over });

  function cluster(): TestCluster {
    const c = new TestCluster({ elr: true });
    for (const id of [1, 2]) c.startBroker(id);
    c.unfence(1);
    c.unfence(2);
    return c;
  }
  const request = (c: TestCluster, id: number, o: Partial<{ brokerEpoch: number; currentMetadataOffset: number; wantFence: boolean; wantShutDown: boolean }> = {}) => ({
    brokerId: id,
    brokerEpoch: c.image.broker(id)?.epoch ?? 1,
    currentMetadataOffset: c.nextOffset - 1,
    wantFence: false,
    wantShutDown: false,
    ...o,
  });

  it('a fresh session knows no metadata offset and no controlled shutdown', () => {
    expect(newHeartbeatState(4, 9, 77, true)).toEqual({ brokerId: 4, brokerEpoch: 9, lastContact: 77, fenced: true, metadataOffset: -1, controlledShutdownOffset: -1 });
  });

  it('a controlled-shutdown offset of 0 is set (shutting down), and SHUTDOWN_NOW stays', () => {
    expect(currentBrokerState(state({ controlledShutdownOffset: 0 }))).toBe('CONTROLLED_SHUTDOWN');
    expect(currentBrokerState(state({ fenced: true }))).toBe('FENCED');
    expect(calculateNextBrokerState('SHUTDOWN_NOW', hb(), 50, false, -1, 0)).toBe('SHUTDOWN_NOW');
  });

  it('the controlled-shutdown offset is set once, and never for a fenced broker', () => {
    expect(maybeUpdateControlledShutdownOffset(state(), 12).controlledShutdownOffset).toBe(12);
    expect(maybeUpdateControlledShutdownOffset(state({ controlledShutdownOffset: 0 }), 12).controlledShutdownOffset).toBe(0);
    expect(maybeUpdateControlledShutdownOffset(state({ controlledShutdownOffset: 5 }), 12).controlledShutdownOffset).toBe(5);
    expect(() => maybeUpdateControlledShutdownOffset(state({ fenced: true }), 12)).toThrow('broker 1: a fenced broker cannot enter controlled shutdown');
  });

  it('the lowest active offset, whatever the order', () => {
    const s = (id: number, off: number, fenced = false) => state({ brokerId: id, metadataOffset: off, fenced });
    expect(lowestActiveOffset([s(1, 10), s(2, 30), s(3, 20)])).toBe(10);
    expect(lowestActiveOffset([s(1, 10, true), s(2, 30), s(3, 20)])).toBe(20);
  });

  it('the stalest broker is chosen wherever it is listed', () => {
    const older = newHeartbeatState(5, 1, ms(999), false);
    const a = newHeartbeatState(2, 1, ms(1000), false);
    const b = newHeartbeatState(1, 1, ms(1000), false);
    expect(findOneStaleBroker([older, a, b], ms(20_000), session)?.brokerId).toBe(5);
  });

  it('a stale-broker pass with nobody stale does nothing; sessions of unregistered brokers are skipped', () => {
    const c = cluster();
    const states = [...activateHeartbeatStates(c.image, ms(0)), newHeartbeatState(9, 1, 0, false)];
    expect(maybeFenceOneStaleBroker(c.image, states, ms(1000), session)).toEqual({ records: [], response: undefined, elections: [], fenced: undefined });
    // Broker 9 is not registered: its expired session fences nobody.
    const fresh = activateHeartbeatStates(c.image, ms(100_000));
    expect(maybeFenceOneStaleBroker(c.image, [...fresh, newHeartbeatState(9, 1, 0, false)], ms(100_001), session).fenced).toBeUndefined();
  });

  it('a stale broker that was shutting down is fenced with its shutdown forgotten', () => {
    const c = cluster();
    const states = activateHeartbeatStates(c.image, 0).map((s) => (s.brokerId === 2 ? { ...s, lastContact: 0, controlledShutdownOffset: 7 } : { ...s, lastContact: ms(9000) }));
    const out = maybeFenceOneStaleBroker(c.image, states, ms(9001), session);
    expect(out.fenced).toEqual({ ...states[1]!, fenced: true, controlledShutdownOffset: -1 });
    expect(out.records.at(-1)).toMatchObject({ type: 'BrokerRegistrationChangeRecord', brokerId: 2, fenced: true });
  });

  it('a heartbeat of an unknown broker or a stale epoch: the whole reply, nothing else', () => {
    const c = cluster();
    const stale = { records: [], response: { error: 'STALE_BROKER_EPOCH', isCaughtUp: false, isFenced: true, inControlledShutdown: false, shouldShutDown: false }, elections: [], state: undefined, transition: undefined };
    expect(processBrokerHeartbeat(c.image, undefined, request(c, 7), 0, 0)).toEqual(stale);
    expect(processBrokerHeartbeat(c.image, undefined, request(c, 1, { brokerEpoch: 999 }), 0, 0)).toEqual(stale);
  });

  it('a steady heartbeat changes nothing and reports no transition; caught up exactly at the registration offset', () => {
    const c = cluster();
    const reg = c.image.registerBrokerRecordOffset(1)!;
    const s = { ...newHeartbeatState(1, c.image.broker(1)!.epoch, 0, false) };
    const out = processBrokerHeartbeat(c.image, s, request(c, 1, { currentMetadataOffset: reg }), ms(5), Infinity);
    expect(out).toEqual({
      records: [],
      response: { error: 'NONE', isCaughtUp: true, isFenced: false, inControlledShutdown: false, shouldShutDown: false },
      elections: [],
      state: { ...s, lastContact: ms(5), metadataOffset: reg },
      transition: undefined,
    });
    expect(processBrokerHeartbeat(c.image, s, request(c, 1, { currentMetadataOffset: reg - 1 }), ms(5), Infinity).response.isCaughtUp).toBe(false);
  });

  it('a session of an older epoch is replaced by one from the registration', () => {
    const c = cluster();
    const epoch = c.image.broker(1)!.epoch;
    const old = { ...newHeartbeatState(1, epoch - 1, 0, true), controlledShutdownOffset: 3 };
    const out = processBrokerHeartbeat(c.image, old, request(c, 1), ms(5), Infinity);
    expect(out.state).toMatchObject({ brokerEpoch: epoch, fenced: false, controlledShutdownOffset: -1 });
    expect(out.transition).toBeUndefined();
  });

  it('an unfenced broker asking to be fenced is fenced, with the record', () => {
    const c = cluster();
    const s = newHeartbeatState(1, c.image.broker(1)!.epoch, 0, false);
    const out = processBrokerHeartbeat(c.image, s, request(c, 1, { wantFence: true }), ms(5), Infinity);
    expect(out.transition).toEqual({ from: 'UNFENCED', to: 'FENCED' });
    expect(out.records).toEqual([expect.objectContaining({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, fenced: true })]);
    expect(out.state).toMatchObject({ fenced: true });
  });

  it('an expired heartbeat of a stale epoch leaves the session as it was', () => {
    const c = cluster();
    const s = newHeartbeatState(1, c.image.broker(1)!.epoch, 0, false);
    expect(processExpiredBrokerHeartbeat(c.image, s, request(c, 1, { brokerEpoch: 999 }), ms(7000))).toBe(s);
    expect(processExpiredBrokerHeartbeat(c.image, s, request(c, 8), ms(7000))).toBe(s);
  });
});

