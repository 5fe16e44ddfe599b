import type { Handlers } from '../../../../sim/core/trace';
import { MARK } from '../labels';
import type { IndexContext, IndexFold, StateContext } from './context';
import { tpKey } from '../../../../sim/kafka/topicPartition';

/**
 * What happened to every produced value (sent, appended by a leader, acknowledged or failed, first read), and
 * the sends' notable moments: the first acknowledgement of a write that will be lost, failures.
 */
export function valuesIndex(c: IndexContext): IndexFold {
  const vt = c.model.values;
  const lost = c.model.lost;
  /** Per producer: whether its last acknowledgement carried a write that will be lost (one marker per run of them). */
  const lastAckLost = new Map<string, boolean>();
  return {
    handlers: {
      'send.invoke': (e) => {
        const id = vt.id(e.value);
        vt.key[id] = e.key;
        vt.producer[id] = e.node;
        vt.topic[id] = e.topic;
        vt.partition[id] = e.partition;
        vt.invokeT[id] = e.t;
        vt.invokeI[id] = c.i;
      },
      'replica.append': (e) => {
        if (e.role !== 'leader' || e.values === undefined) return;
        for (let j = 0; j < e.values.length; j++) {
          const v = e.values[j];
          if (v === null || v === undefined) continue;
          const id = vt.id(v);
          vt.topic[id] = e.topic;
          vt.partition[id] = e.partition;
          vt.offset[id] = e.base + j;
          vt.epoch[id] = e.epoch;
          vt.broker[id] = e.broker;
          vt.appendT[id] = e.t;
          vt.appendI[id] = c.i;
        }
      },
      'send.ok': (e) => {
        let lostValue: string | undefined;
        for (let j = 0; j < e.values.length; j++) {
          const v = e.values[j]!;
          const id = vt.id(v);
          vt.ackT[id] = e.t;
          vt.ackI[id] = c.i;
          vt.acks[id] = e.acks;
          if (vt.offset[id]! < 0 && e.offset >= 0) vt.offset[id] = e.offset + j;
          if (lostValue === undefined && lost.has(v)) lostValue = v;
        }
        const before = lastAckLost.get(e.node) ?? false;
        if (lostValue !== undefined && !before) c.mark(e, c.lane, 'lost-ack', MARK.lostAck(e.node, lostValue));
        lastAckLost.set(e.node, lostValue !== undefined);
      },
      'send.fail': (e) => {
        for (const v of e.values) {
          const id = vt.id(v);
          vt.failT[id] = e.t;
          vt.error[id] = e.error;
        }
        c.mark(e, c.lane, 'send-fail', MARK.sendFail(e));
      },
      'consumer.poll': (e) => {
        for (const rec of e.records) {
          for (const v of rec.values) {
            if (v === null) continue;
            const id = vt.id(v);
            if (vt.readT[id]! >= 0) continue;
            vt.readT[id] = e.t;
            vt.readI[id] = c.i;
            vt.reader[id] = e.node;
          }
        }
      },
    },
    finish: () => {
      for (const v of lost) {
        const info = vt.get(v);
        if (!info || info.offset < 0) continue;
        const key = tpKey(info.topic, info.partition);
        let list = c.model.lostByPartition.get(key);
        if (!list) c.model.lostByPartition.set(key, (list = []));
        list.push({ offset: info.offset, value: v });
      }
      for (const list of c.model.lostByPartition.values()) list.sort((a, b) => a.offset - b.offset);
    },
  };
}

/** Acknowledged and failed records so far. */
export function valuesState(c: StateContext): Handlers {
  return {
    'send.ok': (e) => {
      c.s.acked += e.values.length;
    },
    'send.fail': (e) => {
      c.s.failed += e.values.length;
    },
  };
}
