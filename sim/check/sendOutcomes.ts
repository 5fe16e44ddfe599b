/**
 * acked, send-failed, send-unknown: how each send ended, as the producer application learned it (Jepsen's
 * :ok, :fail and :info operations). The counts are kept as the outcomes arrive; the examples are the first
 * sends of each kind, in send order.
 */
import { FIGURE, type CheckDefinition } from './check';
import type { History } from './history/history';
import { Status } from './history/sends';
import { result } from './report';

export const sendOutcomes: CheckDefinition = {
  id: 'sendOutcomes',
  source: FIGURE,
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      out.acked = result(s.byStatus[Status.Ok]!);
      out['send-failed'] = result(
        s.byStatus[Status.Fail]!,
        firstSends(h, Status.Fail).map((v) => `${h.value(v)} to ${h.where(s.tp(v))} failed with ${s.error(v)}`),
      );
      out['send-unknown'] = result(
        s.byStatus[Status.Unknown]!,
        firstSends(h, Status.Unknown).map((v) => `${h.value(v)} sent at ${h.at(s.invokeUs(v))} never completed`),
      );
    },
  }),
};

/** The first few sends (in send order) with this outcome. */
function firstSends(h: History, status: Status): number[] {
  const out: number[] = [];
  if (h.sends.byStatus[status] === 0) return out;
  // The sends still open are the ones from the oldest open on (unless a send changed after its answer).
  if (status === Status.Unknown && !h.sends.irregular) {
    h.sends.forEachOpen((v) => {
      if (out.length < 5) out.push(v);
    });
    return out;
  }
  h.sends.forEachUntil((v) => {
    if (h.sends.status(v) === status) out.push(v);
    return out.length < 5;
  });
  return out;
}
