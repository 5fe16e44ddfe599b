import type { Handlers, TraceEventOf } from '../../../../sim/core/trace';
import { MARK } from '../labels';
import type { IndexContext, IndexFold, StateContext } from './context';

/** Faults a heal undoes (the network's); the others end with their own fault.end. */
const NETWORK_FAULTS: ReadonlySet<string> = new Set(['partition', 'isolate', 'one-way', 'latency', 'lossy']);

/** Faults as intervals (start to end, or to the quiet period when never ended), with a marker at each change. */
export function faultsIndex(c: IndexContext, end: () => number): IndexFold {
  const open = new Map<number, { e: TraceEventOf<'fault.start'>; i: number }>();
  const close = (f: { e: TraceEventOf<'fault.start'>; i: number }, t: number) => {
    c.model.faults.push({ index: f.e.index, fault: f.e.fault, hosts: f.e.hosts, lanes: f.e.hosts.map((h) => c.laneOf(h)), detail: f.e.detail, start: f.e.t, end: t, startIndex: f.i });
  };
  return {
    handlers: {
      'fault.start': (e) => {
        open.set(e.index, { e, i: c.i });
        c.mark(e, 0, 'fault', MARK.faultStart(e));
        if (e.fault !== 'heal') return;
        for (const [idx, f] of open) {
          if (!NETWORK_FAULTS.has(f.e.fault)) continue;
          close(f, e.t);
          open.delete(idx);
        }
        open.delete(e.index);
      },
      'fault.end': (e) => {
        const f = open.get(e.index);
        if (f) {
          close(f, e.t);
          open.delete(e.index);
        }
        c.mark(e, 0, 'fault', MARK.faultEnd(e));
      },
    },
    finish: () => {
      const t = end();
      for (const f of open.values()) close(f, t);
      c.model.faults.sort((a, b) => a.start - b.start || a.index - b.index);
    },
  };
}

/** The faults in force at a moment. */
export function faultsState(c: StateContext): Handlers {
  return {
    'fault.start': (e) => {
      const s = c.s;
      if (e.fault === 'heal') s.faults = s.faults.filter((f) => !NETWORK_FAULTS.has(f.fault));
      else s.faults = [...s.faults, { index: e.index, fault: e.fault, hosts: e.hosts, detail: e.detail, start: e.t }];
    },
    'fault.end': (e) => {
      c.s.faults = c.s.faults.filter((f) => f.index !== e.index);
    },
    'scenario.quiet': () => {
      c.s.faults = [];
    },
  };
}
