import type { Handlers } from '../../../../sim/core/trace';
import { MARK } from '../labels';
import { brokerOfNode } from '../nodes';
import type { IndexContext, IndexFold, StateContext } from './context';
import { tpKey } from '../../../../sim/kafka/topicPartition';

/** The controllers' decisions as notable moments: who is active, elections, fencing, ISR changes. */
export function electionsIndex(c: IndexContext): IndexFold {
  return {
    handlers: {
      'controller.active': (e) => c.mark(e, c.lane, 'controller', MARK.activeController(e)),
      'controller.election': (e) => c.mark(e, e.leader >= 0 ? c.laneOf(`broker-${e.leader}`) : c.lane, 'election', MARK.election(e)),
      'controller.broker': (e) => {
        if (e.change === 'fenced' || e.change === 'unfenced') c.mark(e, c.laneOf(`broker-${e.broker}`), 'fenced', MARK.fenced(e));
      },
      'replica.alter-isr': (e) => c.mark(e, c.lane, 'isr', MARK.isrChange(e)),
    },
  };
}

/** The quorum and the partitions' leadership at a moment: raft states, the active controller, fencing, leaders, ISR, ELR. */
export function electionsState(c: StateContext): Handlers {
  const partition = (e: { topic: string; partition: number }) => c.s.partitions.get(tpKey(e.topic, e.partition));
  /** The leadership the controller committed. */
  const commit = (e: { topic: string; partition: number; leader: number; leaderEpoch: number; isr: number[]; elr: number[] }) => {
    const p = partition(e);
    if (!p) return undefined;
    p.leader = e.leader;
    p.leaderEpoch = e.leaderEpoch;
    p.isr = e.isr;
    p.elr = e.elr;
    return p;
  };
  return {
    'raft.state-change': (e) => {
      c.s.raft.set(e.node, e.state);
    },
    'controller.active': (e) => {
      c.s.activeController = e.node;
      c.s.controllerEpoch = e.epoch;
    },
    'controller.inactive': (e) => {
      if (c.s.activeController === e.node) c.s.activeController = null;
    },
    'controller.broker': (e) => {
      if (e.change === 'fenced') c.s.fenced.set(e.broker, true);
      else if (e.change === 'unfenced') c.s.fenced.set(e.broker, false);
      else if (e.change === 'registered') c.s.fenced.set(e.broker, c.s.fenced.get(e.broker) ?? true);
    },
    'broker.state': (e) => {
      c.s.brokerState.set(brokerOfNode(e.node), e.state);
    },
    'controller.election': (e) => {
      const p = commit(e);
      if (p) p.lastElection = { t: e.t, source: e.source ?? 'none', leader: e.leader, reason: e.reason };
    },
    'controller.partition': commit,
    'replica.alter-isr': (e) => {
      const p = partition(e);
      if (p) p.isr = e.to;
    },
  };
}
