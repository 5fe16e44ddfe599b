import type { Handlers } from '../../../../sim/core/trace';
import { MARK } from '../labels';
import type { IndexContext, IndexFold, StateContext } from './context';

/** The run's own moments: scenario time 0, the quiet period, the end, the captions of a guided scenario. */
export function scenarioIndex(c: IndexContext, times: { t0: number; tQuiet: number }): IndexFold {
  return {
    handlers: {
      'scenario.start': (e) => {
        times.t0 = e.t;
        c.mark(e, 0, 'scenario', MARK.scenarioStart);
      },
      'scenario.quiet': (e) => {
        times.tQuiet = e.t;
        c.mark(e, 0, 'scenario', MARK.scenarioQuiet);
      },
      'scenario.end': (e) => c.mark(e, 0, 'scenario', MARK.scenarioEnd),
      // The operator's script: a mark on the node it acts on (the end of the roll on the scenario lane).
      'operator.step': (e) => {
        if (e.step !== 'exited') c.mark(e, e.target ? c.laneOf(e.target) : 0, 'scenario', MARK.operator(e));
      },
      caption: (e) => {
        // The anchor precedes its caption (emitted at the same instant, a few events before).
        let about = -1;
        if (e.about !== undefined) {
          const events = c.model.events;
          for (let j = c.i - 1; j >= 0 && events[j]!.t === e.t; j--) {
            if (events[j]!.seq === e.about) {
              about = j;
              break;
            }
          }
        }
        c.model.captions.push({ t: e.t, i: c.i, text: e.text, about });
        c.mark(e, 0, 'caption', e.text);
      },
    },
  };
}

export function scenarioState(c: StateContext): Handlers {
  return {
    caption: (e) => {
      c.s.caption = { t: e.t, text: e.text, i: c.i };
    },
  };
}
