import type { Handlers } from '../../../../sim/core/trace';
import type { HostStatus } from '../clusterState';
import { MARK } from '../labels';
import type { HostInterval } from '../traceModel';
import type { IndexContext, IndexFold, StateContext } from './context';

/** Stretches when a host was not running normally, with a marker at each change. */
export function hostsIndex(c: IndexContext): IndexFold {
  const down = new Map<number, { state: HostInterval['state']; start: number }>();
  const closeDown = (lane: number, t: number) => {
    const d = down.get(lane);
    if (!d) return;
    c.model.hostIntervals.push({ lane, state: d.state, start: d.start, end: t });
    down.delete(lane);
  };
  const goDown = (lane: number, t: number, state: HostInterval['state']) => {
    closeDown(lane, t);
    down.set(lane, { state, start: t });
  };
  return {
    handlers: {
      'host.crash': (e) => {
        goDown(c.lane, e.t, 'crashed');
        c.mark(e, c.lane, 'host', MARK.crashed(e.node));
      },
      'host.power-off': (e) => {
        goDown(c.lane, e.t, 'powered off');
        c.mark(e, c.lane, 'host', MARK.poweredOff(e.node));
      },
      'host.stop': (e) => {
        goDown(c.lane, e.t, 'stopping');
        c.mark(e, c.lane, 'host', MARK.stopped(e.node));
      },
      'process.exit': (e) => {
        const lane = c.laneOf(e.process);
        goDown(lane, e.t, 'stopped');
        c.mark(e, lane, 'host', MARK.exited(e));
      },
      'host.pause': (e) => {
        goDown(c.lane, e.t, 'paused');
        c.mark(e, c.lane, 'host', MARK.paused(e.node));
      },
      'host.resume': (e) => {
        closeDown(c.lane, e.t);
        c.mark(e, c.lane, 'host', MARK.resumed(e.node));
      },
      'host.restart': (e) => {
        goDown(c.lane, e.t, 'restarting');
        c.mark(e, c.lane, 'host', MARK.restarts(e.node, false));
      },
      'host.power-on': (e) => {
        goDown(c.lane, e.t, 'restarting');
        c.mark(e, c.lane, 'host', MARK.restarts(e.node, true));
      },
      'host.up': (e) => {
        if (!down.has(c.lane)) return;
        closeDown(c.lane, e.t);
        c.mark(e, c.lane, 'host', MARK.up(e.node));
      },
      'disk.power-loss': (e) => c.mark(e, c.lane, 'power-loss', MARK.diskLoss(e)),
    },
    finish: () => {
      for (const [lane, d] of down) c.model.hostIntervals.push({ lane, state: d.state, start: d.start, end: c.model.tLast });
    },
  };
}

/** Each host's status at a moment. */
export function hostsState(c: StateContext): Handlers {
  const set = (lane: number, status: HostStatus, t: number) => {
    c.s.hosts[lane] = status;
    c.s.hostSince[lane] = t;
  };
  return {
    'host.up': (e) => set(c.lane, 'up', e.t),
    'host.crash': (e) => set(c.lane, 'crashed', e.t),
    'host.power-off': (e) => set(c.lane, 'powered off', e.t),
    'host.stop': (e) => set(c.lane, 'stopping', e.t),
    'host.restart': (e) => set(c.lane, 'restarting', e.t),
    'host.power-on': (e) => set(c.lane, 'restarting', e.t),
    'host.pause': (e) => set(c.lane, 'paused', e.t),
    'host.resume': (e) => {
      if (c.s.hosts[c.lane] === 'paused') set(c.lane, 'up', e.t);
    },
    'process.exit': (e) => {
      const l = c.model.laneIndex.get(e.process);
      if (l !== undefined) set(l, 'stopped', e.t);
    },
  };
}
