import type { Messages } from '../traceModel';
import type { IndexContext, IndexFold } from './context';

/** Network messages (a "full" trace's net.send) as columns: the sequence diagram draws thousands of them. */
export function messagesIndex(c: IndexContext, done: (m: Messages | null) => void): IndexFold {
  const send: number[] = [];
  const arrive: number[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const type: number[] = [];
  const index: number[] = [];
  const types = new Map<string, number>();
  return {
    handlers: {
      'net.send': (e) => {
        let ty = types.get(e.type);
        if (ty === undefined) types.set(e.type, (ty = types.size));
        send.push(e.t);
        arrive.push(e.arrive);
        from.push(c.lane);
        to.push(c.laneOf(e.to));
        type.push(ty);
        index.push(c.i);
      },
    },
    finish: () =>
      done(
        send.length === 0
          ? null
          : {
              n: send.length,
              send: Float64Array.from(send),
              arrive: Float64Array.from(arrive),
              from: Int16Array.from(from),
              to: Int16Array.from(to),
              type: Uint16Array.from(type),
              types: [...types.keys()],
              index: Int32Array.from(index),
            },
      ),
  };
}
