import { append, el, replace } from '../lib/dom';
import { STATE_COLORS } from '../lib/colors';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import type { ClusterState } from '../model/clusterState';
import { chainToArray, findBatch } from '../model/replicaLog';
import type { Lane } from '../model/traceModel';
import { fenceOnCard, transactionsOf } from '../model/transactions';
import { tpKey } from '../../../sim/kafka/topicPartition';

interface Card {
  readonly lane: Lane;
  readonly laneIndex: number;
  readonly root: HTMLDivElement;
  readonly pill: HTMLSpanElement;
  readonly badges: HTMLDivElement;
  readonly body: HTMLDivElement;
}

const CUT_OFF = new Set(['partition', 'isolate', 'one-way']);

/**
 * Controllers and brokers by zone and rack, each with its state (up, crashed, powered off, paused,
 * fenced, cut off), the active controller, and how many partitions each broker leads and follows.
 */
export class ClusterView {
  private run: LoadedRun | null = null;
  private cards: Card[] = [];

  constructor(
    private readonly root: HTMLElement,
    /** A click (or right-click) on a node: what-if actions for it. */
    private readonly onHost: ((host: string, x: number, y: number) => void) | null = null,
  ) {}

  setRun(run: LoadedRun | null): void {
    this.run = run;
    this.cards = [];
    replace(this.root);
    if (!run) return;
    const lanes = run.model.lanes;
    const zones = new Map<string, { lane: Lane; i: number }[]>();
    const clients: { lane: Lane; i: number }[] = [];
    lanes.forEach((lane, i) => {
      if (lane.group === 'scenario') return;
      if (lane.group === 'client') {
        clients.push({ lane, i });
        return;
      }
      let z = zones.get(lane.zone);
      if (!z) zones.set(lane.zone, (z = []));
      z.push({ lane, i });
    });
    const zoneEls = [...zones.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([zone, hosts]) => {
        hosts.sort((a, b) => (a.lane.group === b.lane.group ? (a.lane.rack < b.lane.rack ? -1 : a.lane.rack > b.lane.rack ? 1 : a.i - b.i) : a.lane.group === 'controller' ? -1 : 1));
        return el('div', { class: 'zone' }, el('div', { class: 'zone-name' }, zone || 'zone'), el('div', { class: 'zone-hosts' }, ...hosts.map((h) => this.card(h.lane, h.i).root)));
      });
    const clientEls = clients.map((c) => this.card(c.lane, c.i, true).root);
    append(this.root, el('div', { class: 'zones' }, ...zoneEls), clientEls.length ? el('div', { class: 'clients' }, el('span', { class: 'zone-name' }, 'clients'), ...clientEls) : null);
  }

  private card(lane: Lane, laneIndex: number, small = false): Card {
    const pill = el('span', { class: 'pill', 'data-testid': `state-${lane.id}` });
    const badges = el('div', { class: 'badges' });
    const body = el('div', { class: 'card-body' });
    const title = lane.group === 'controller' ? lane.id.replace('controller-', 'controller ') : lane.broker >= 0 ? (this.run?.model.names.broker(lane.broker) ?? `broker ${lane.broker}`) : lane.id;
    const root = el(
      'div',
      { class: `card ${lane.group}${small ? ' small' : ''}`, 'data-host': lane.id },
      el('div', { class: 'card-head' }, el('span', { class: 'card-title' }, title), pill),
      lane.rack ? el('div', { class: 'card-rack' }, `rack ${lane.rack}`) : null,
      badges,
      body,
    );
    const c = { lane, laneIndex, root, pill, badges, body };
    this.cards.push(c);
    if (this.onHost && lane.id !== 'admin' && lane.id !== 'operator') {
      root.classList.add('actionable');
      root.title = 'Click: crash, stop, power off, pause or isolate it at this moment (a what-if run beside this one)';
      const open = (e: MouseEvent) => {
        e.preventDefault();
        this.onHost!(lane.id, e.clientX, e.clientY);
      };
      root.addEventListener('click', open);
      root.addEventListener('contextmenu', open);
    }
    return c;
  }

  /** The hosts a caption names pulse. */
  setPulse(hosts: readonly string[]): void {
    for (const c of this.cards) c.root.classList.toggle('pulse', hosts.includes(c.lane.id));
  }

  render(state: ClusterState, selected: string | null, partitionKey: string): void {
    const run = this.run;
    if (!run) return;
    const model = run.model;
    const sel = selected ? model.values.get(selected) : undefined;
    for (const c of this.cards) {
      const lane = c.lane;
      let status: string = state.hosts[c.laneIndex] ?? 'up';
      if (status === 'up' && lane.broker >= 0 && state.fenced.get(lane.broker) === true) status = 'fenced';
      if (status === 'up' && state.faults.some((f) => (f.fault === 'partition' || f.fault === 'isolate') && f.hosts.includes(lane.id))) status = 'cut off';
      const since = state.hostSince[c.laneIndex] ?? 0;
      c.pill.textContent = status;
      c.pill.style.background = STATE_COLORS[status] ?? '#999';
      c.pill.title = status === 'up' ? '' : `since ${rel(since, model.t0)}`;
      c.root.dataset['state'] = status;
      const badges: HTMLElement[] = [];
      for (const f of state.faults) {
        if (!f.hosts.includes(lane.id)) continue;
        if (CUT_OFF.has(f.fault)) badges.push(el('span', { class: 'badge cut', title: f.detail }, f.fault === 'one-way' ? 'cut off (one way)' : f.fault === 'isolate' ? 'isolated' : 'partitioned'));
        else if (f.fault === 'latency' || f.fault === 'lossy') badges.push(el('span', { class: 'badge warn', title: f.detail }, f.fault === 'lossy' ? 'lossy network' : 'slow network'));
        else if (f.fault === 'slow-disk' || f.fault === 'disk-full') badges.push(el('span', { class: 'badge warn', title: f.detail }, f.fault.replace('-', ' ')));
      }
      if (lane.group === 'controller') {
        if (state.activeController === lane.id) badges.push(el('span', { class: 'badge active', 'data-testid': 'active-controller' }, '★ active controller'));
        const raft = state.raft.get(lane.id);
        replace(c.body, raft ? `KRaft ${raft}` : '');
      } else if (lane.broker >= 0) {
        let leads = 0;
        let follows = 0;
        let roleHere = '';
        for (const p of state.partitions.values()) {
          if (!p.replicas.has(lane.broker) || p.leaderEpoch < 0) continue;
          if (p.leader === lane.broker) leads++;
          else follows++;
          if (p.key === partitionKey && p.leaderEpoch >= 0) roleHere = p.leader === lane.broker ? 'leader' : p.isr.includes(lane.broker) ? 'in ISR' : 'out of ISR';
        }
        const lines: HTMLElement[] = [el('div', {}, `leads ${leads} · follows ${follows}`)];
        if (roleHere) lines.push(el('div', { class: `role ${roleHere.replace(/ /g, '-')}`, title: `${partitionKey}: ${roleHere}` }, `${partitionKey}: ${roleHere}`));
        if (sel && sel.offset >= 0) {
          const holds = this.holds(state, lane.broker, tpKey(sel.topic, sel.partition), sel.epoch, sel.offset);
          if (holds === 'holds') lines.push(el('div', { class: 'holds', 'data-testid': 'holds-selected', title: `this broker holds ${selected}` }, `holds ${selected}`));
          else if (holds === 'removed') lines.push(el('div', { class: 'holds removed', title: `this broker removed ${selected}` }, `removed ${selected}`));
        }
        replace(c.body, ...lines);
      } else {
        const text = lane.id.startsWith('producer')
          ? `acked ${state.acked}${state.failed ? ` · failed ${state.failed}` : ''}`
          : ((m) => (m ? `${m.group ?? 'no group'} · owns ${m.owned.length ? m.owned.join(', ') : 'nothing'}` : ''))(state.members.get(lane.id));
        // A transactional producer fenced by a newer epoch of its transactional.id says so on its card, on the same line.
        const fenced = fenceOnCard(transactionsOf(model.events), lane.id, model.events[state.i]?.t ?? -1);
        if (fenced) replace(c.body, text ? `${text} · ` : '', el('span', { class: 'fenced', 'data-testid': `fenced-${lane.id}`, title: fenced.title }, fenced.text));
        else replace(c.body, text);
      }
      replace(c.badges, ...badges);
    }
  }

  /** Whether a broker's replica holds a record (by its offset and the epoch it was written in). */
  private holds(state: ClusterState, broker: number, key: string, epoch: number, offset: number): 'holds' | 'removed' | 'no' {
    const r = state.partitions.get(key)?.replicas.get(broker);
    if (!r) return 'no';
    if (offset < r.leo && offset >= r.logStart) {
      const batches = chainToArray(r.tip, offset);
      const j = findBatch(batches, offset);
      if (j >= 0 && batches[j]!.epoch === epoch) return 'holds';
    }
    for (let rm = r.removed; rm; rm = rm.prev) {
      if (rm.batches.some((b) => b.base <= offset && offset <= b.last && b.epoch === epoch)) return 'removed';
    }
    return 'no';
  }
}
