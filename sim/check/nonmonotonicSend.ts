/**
 * nonmonotonic-send: a producer's acknowledged sends to one key landed out of the order it sent them in, within
 * a partition (retries with max.in.flight.requests.per.connection > 1 and no idempotence). A key that moved
 * partitions (the partition count grew) starts over: order is promised within a partition only.
 *
 * As sends are answered, each (producer, partition) checks that its keyed answers come in send order at
 * offsets that never go down: then no key can be out of order, and the report has nothing to look for. Only
 * when that fails (or the sends changed after their answers) does the report compare keys through every send.
 */
import type { CheckDefinition, ReportOut } from './check';
import type { History } from './history/history';
import { Status } from './history/sends';
import { result } from './report';

export const nonmonotonicSend: CheckDefinition = {
  id: 'nonmonotonicSend',
  source: 'Jepsen: nonmonotonic-send',
  make: (h) => {
    const s = h.sends;
    /** (producer, partition) -> the last keyed answer's value id and offset, as [id, offset] pairs by index. */
    const indexOf = new Map<number, number>();
    const lastAnswer: number[] = [];
    let lastWhere = -1;
    let at = -1;
    let unsure = false;
    s.onComplete((a) => {
      if (unsure || a.status !== Status.Ok) return;
      for (let k = 0; k < a.length; k++) {
        const o = a.offset[k]!;
        const v = a.v[k]!;
        if (o < 0 || a.key[k]! < 0) continue;
        const where = a.producer[k]! * 0x100000 + a.tp[k]!;
        if (where !== lastWhere) {
          let i = indexOf.get(where);
          if (i === undefined) {
            i = lastAnswer.length;
            indexOf.set(where, i);
            lastAnswer.push(-1, -1);
          }
          at = i;
          lastWhere = where;
        }
        // A producer numbers its values in send order (while its ids ascend, see Sends), so ids are send order.
        if (v <= lastAnswer[at]! || o < lastAnswer[at + 1]!) {
          unsure = true;
          return;
        }
        lastAnswer[at] = v;
        lastAnswer[at + 1] = o;
      }
    });
    return {
      report: (out) => {
        if (unsure || s.irregular || s.producerIdsUnordered) outOfOrder(h, out);
        else out['nonmonotonic-send'] = result(0);
      },
    };
  },
};

/** Keys whose answers landed out of send order: one pass over every send. */
function outOfOrder(h: History, out: ReportOut): void {
  const s = h.sends;
  // (producer, partition) -> key -> the acknowledged send with the highest offset so far, in send order.
  const last = new Map<number, Map<number, number>>();
  let count = 0;
  const examples: string[] = [];
  s.forEach((v) => {
    const key = s.key(v);
    const o = s.offset(v);
    if (s.status(v) !== Status.Ok || o < 0 || key < 0) return;
    const where = s.producer(v) * 0x100000 + s.tp(v);
    let byKey = last.get(where);
    if (!byKey) last.set(where, (byKey = new Map()));
    const prev = byKey.get(key);
    if (prev !== undefined && o < s.offset(prev)) {
      count++;
      if (examples.length < 5) examples.push(`${s.producerName(v)} sent ${h.value(prev)} before ${h.value(v)} (key ${s.keyName(v)}) but they landed at offsets ${s.offset(prev)} and ${o}`);
    }
    if (prev === undefined || o > s.offset(prev)) byKey.set(key, v);
  });
  out['nonmonotonic-send'] = result(count, examples);
}
