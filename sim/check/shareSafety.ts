/**
 * What share groups promise, judged against the simulator's own record of every acquisition:
 * - `share.acked-by-non-holder`: records whose acknowledgement the leader applied although, by the acquisition
 *   history, the member did not hold them (its lock had expired, it had released them, another member had
 *   acquired them since), plus records acknowledged twice — must be 0;
 * - `share.unfinished`: acknowledged records of a share group's topics, from where its share-partition started,
 *   that the group neither acknowledged nor archived by the end (at-least-once: must be 0 once the run is quiet).
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

const ACK_CAUSES = new Set(['accept', 'release', 'reject', 'renew']);

export const shareSafety: CheckDefinition = {
  id: 'shareSafety',
  source: SIMULATOR_ONLY,
  make: (h) => {
    /** group/tp -> offset -> member holding it per the acquisitions ('' none). */
    const holders = new Map<string, Map<number, string>>();
    /** group/tp -> finished offsets (acknowledged or archived). */
    const finished = new Map<string, Set<number>>();
    /** topic -> group -> partition -> first start offset. */
    const starts = new Map<string, Map<string, Map<number, number>>>();
    let bad = 0;
    const badExamples: string[] = [];
    const of = <V>(m: Map<string, V>, k: string, make: () => V): V => {
      let v = m.get(k);
      if (v === undefined) m.set(k, (v = make()));
      return v;
    };
    return {
      handlers: {
        'share.partition.init': (e) => {
          const k = `${e.group} ${e.topic}-${e.partition}`;
          // A new leader starts from the persisted state: nobody holds anything there.
          holders.delete(k);
          const byGroup = of(of(starts, e.topic, () => new Map<string, Map<number, number>>()), e.group, () => new Map<number, number>());
          if (!byGroup.has(e.partition)) byGroup.set(e.partition, e.spso);
        },
        'share.acquire': (e) => {
          const m = of(holders, `${e.group} ${e.topic}-${e.partition}`, () => new Map<number, string>());
          for (const o of e.offsets) m.set(o, e.memberId);
        },
        'share.transition': (e) => {
          const k = `${e.group} ${e.topic}-${e.partition}`;
          const m = of(holders, k, () => new Map<number, string>());
          const done = of(finished, k, () => new Set<number>());
          for (const o of e.offsets) {
            if (ACK_CAUSES.has(e.cause) && (m.get(o) ?? '') !== e.memberId) {
              bad++;
              if (badExamples.length < 5) badExamples.push(`${k} offset ${o}: ${e.cause} applied for ${e.memberId}, but ${m.get(o) || 'nobody'} held it`);
            }
            if (e.to === 'ACKNOWLEDGED' || e.to === 'ARCHIVED') {
              if (e.to === 'ACKNOWLEDGED' && done.has(o)) {
                bad++;
                if (badExamples.length < 5) badExamples.push(`${k} offset ${o} was acknowledged twice`);
              }
              done.add(o);
            }
            if (e.cause !== 'renew') m.set(o, '');
          }
        },
      },
      report: (out) => {
        out['share.acked-by-non-holder'] = result(bad, badExamples);
        const missing: string[] = [];
        let unfinished = 0;
        if (starts.size > 0) {
          h.sends.forEach((v) => {
            if (h.sends.status(v) !== Status.Ok) return;
            const tp = h.sends.tp(v);
            const groups = starts.get(h.tps.topicName(tp));
            if (!groups) return;
            const offset = h.sends.offset(v);
            for (const [group, parts] of groups) {
              const start = parts.get(h.tps.partition(tp));
              if (start === undefined || offset < start) continue;
              if (finished.get(`${group} ${h.where(tp)}`)?.has(offset)) continue;
              unfinished++;
              if (missing.length < 5) missing.push(`${h.value(v)} (${h.where(tp)} offset ${offset}) was neither acknowledged nor archived by share group ${group}`);
            }
          });
        }
        out['share.unfinished'] = result(unfinished, missing);
      },
    };
  },
};
