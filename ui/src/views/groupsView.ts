import * as d3 from 'd3';
import { el, replace } from '../lib/dom';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import type { ClusterState } from '../model/clusterState';
import type { GroupsModel } from '../model/groupsModel';
import { tpKey } from '../../../sim/kafka/topicPartition';

export interface GroupsHandlers {
  onSeek(i: number): void;
}

const LEFT = 150;
const ROW = 20;
const LAG_H = 130;

/**
 * Consumer groups over time: which member owned which partition (bars), the rebalances (orange lines),
 * the commits (ticks), and the lag (high watermark minus committed offset) as a chart; a table for the
 * moment under the cursor.
 */
export class GroupsView {
  private run: LoadedRun | null = null;
  private readonly svg: d3.Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly table: HTMLDivElement;
  private readonly empty: HTMLDivElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: GroupsHandlers,
  ) {
    this.empty = el('div', { class: 'empty', 'data-testid': 'groups-empty' });
    root.appendChild(this.empty);
    this.svg = d3.select(root).append('svg').attr('class', 'groups-svg').attr('data-testid', 'groups-svg');
    this.table = el('div', { class: 'groups-table' });
    root.appendChild(this.table);
  }

  setRun(run: LoadedRun | null): void {
    this.run = run;
    this.svg.selectAll('*').remove();
  }

  render(state: ClusterState, now: number, selected: string | null = null): void {
    const run = this.run;
    if (!run) return;
    const m = run.model;
    const g = run.groups;
    if (!m.hasGroups || g.rows.length === 0) {
      this.empty.hidden = false;
      this.empty.textContent =
        'This run has no consumer groups: the trace holds no consumer.* or group.* events. Runs with consumers show here which member owned each partition over time, the rebalances, the committed offsets and the lag.';
      this.svg.attr('height', 0);
      replace(this.table);
      return;
    }
    this.empty.hidden = true;
    this.draw(g, now, selected);
    this.renderTable(state, g);
  }

  private draw(g: GroupsModel, now: number, selected: string | null): void {
    const run = this.run!;
    const m = run.model;
    const width = Math.max(400, this.root.clientWidth - 8);
    const gantH = g.rows.length * ROW + 24;
    const height = gantH + LAG_H + 40;
    const svg = this.svg.attr('width', width).attr('height', height);
    const x = d3
      .scaleLinear()
      .domain([Math.min(m.t0, m.tLast), m.tLast])
      .range([LEFT, width - 12]);
    const color = d3.scaleOrdinal<string, string>().domain(g.consumers).range(d3.schemeSet2);
    const rowY = new Map(g.rows.map((r, i) => [`${r.group}\u0000${r.tp}`, 20 + i * ROW]));

    // Ticks at round scenario times.
    const axisScale = d3
      .scaleLinear()
      .domain(x.domain().map((t) => t - m.t0))
      .range(x.range());
    svg.selectAll<SVGGElement, number>('g.axis').data([0]).join('g').attr('class', 'axis').attr('transform', 'translate(0,16)').call(d3.axisTop(axisScale).ticks(8).tickFormat((d) => `${+(Number(d) / 1e6).toFixed(3)}s`));
    svg
      .selectAll('text.row-label')
      .data(g.rows)
      .join('text')
      .attr('class', 'row-label')
      .attr('x', 6)
      .attr('y', (_d, i) => 20 + i * ROW + 14)
      .text((d) => `${d.group} · ${d.tp}`);
    svg
      .selectAll('rect.own')
      .data(g.bars)
      .join('rect')
      .attr('class', 'own')
      .attr('x', (b) => x(b.start))
      .attr('y', (b) => (rowY.get(`${b.group}\u0000${b.tp}`) ?? 0) + 2)
      .attr('width', (b) => Math.max(1, x(b.end) - x(b.start)))
      .attr('height', ROW - 4)
      .attr('fill', (b) => color(b.consumer))
      .selectAll('title')
      .data((b) => [b])
      .join('title')
      .text((b) => `${b.consumer} owned ${b.tp} from ${rel(b.start, m.t0)} to ${rel(b.end, m.t0)}`);
    svg
      .selectAll('text.own-label')
      .data(g.bars.filter((b) => x(b.end) - x(b.start) > 70))
      .join('text')
      .attr('class', 'own-label')
      .attr('x', (b) => x(b.start) + 4)
      .attr('y', (b) => (rowY.get(`${b.group}\u0000${b.tp}`) ?? 0) + 14)
      .text((b) => b.consumer);
    svg
      .selectAll('path.commit')
      .data([0])
      .join('path')
      .attr('class', 'commit')
      .attr('d', g.commits.map((c) => `M${x(c.t)},${(rowY.get(`${c.group}\u0000${c.tp}`) ?? 0) + ROW - 3}v-4`).join(''));
    svg
      .selectAll<SVGLineElement, GroupsModel['rebalances'][number]>('line.rebalance')
      .data(g.rebalances)
      .join('line')
      .attr('class', 'rebalance')
      .attr('x1', (r) => x(r.t))
      .attr('x2', (r) => x(r.t))
      .attr('y1', 18)
      .attr('y2', gantH)
      .on('click', (_e, r) => this.handlers.onSeek(r.i))
      .selectAll('title')
      .data((r) => [r])
      .join('title')
      .text((r) => `${rel(r.t, m.t0)} ${r.group} ${r.protocol === 'consumer' ? 'moves to group epoch' : 'rebalances to generation'} ${r.generation} (${r.reason})`);

    // The chosen record: where and when a member of each group first read it.
    const info = selected ? m.values.get(selected) : undefined;
    const reads = info && info.readT >= 0 ? g.rows.filter((r) => r.tp === tpKey(info.topic, info.partition)).map((r) => ({ y: rowY.get(`${r.group}\u0000${r.tp}`) ?? 0, t: info.readT })) : [];
    svg
      .selectAll('circle.selected-read')
      .data(reads)
      .join('circle')
      .attr('class', 'selected-read')
      .attr('cx', (d) => x(d.t))
      .attr('cy', (d) => d.y + ROW / 2)
      .attr('r', 6)
      .attr('data-testid', 'groups-selected');

    // Lag chart.
    const top = gantH + 24;
    const y = d3
      .scaleLinear()
      .domain([0, Math.max(1, g.maxLag)])
      .nice()
      .range([top + LAG_H, top]);
    svg.selectAll<SVGGElement, number>('g.yaxis').data([0]).join('g').attr('class', 'yaxis').attr('transform', `translate(${LEFT},0)`).call(d3.axisLeft(y).ticks(4));
    svg.selectAll('text.lag-title').data([0]).join('text').attr('class', 'lag-title').attr('x', 6).attr('y', top + 10).text('lag (records)');
    const line = d3
      .line<{ t: number; lag: number }>()
      .x((p) => x(p.t))
      .y((p) => y(p.lag))
      .curve(d3.curveStepAfter);
    const lagColor = d3.scaleOrdinal<string, string>(d3.schemeTableau10);
    svg
      .selectAll('path.lag')
      .data(g.lag)
      .join('path')
      .attr('class', 'lag')
      .attr('d', (s) => line(s.points))
      .attr('stroke', (s) => lagColor(`${s.group}\u0000${s.tp}`))
      .selectAll('title')
      .data((s) => [s])
      .join('title')
      .text((s) => `${s.group} ${s.tp}`);
    svg
      .selectAll('line.cursor')
      .data([x(now)])
      .join('line')
      .attr('class', 'cursor')
      .attr('x1', (d) => d)
      .attr('x2', (d) => d)
      .attr('y1', 14)
      .attr('y2', top + LAG_H);
  }

  private renderTable(state: ClusterState, g: GroupsModel): void {
    const hw = new Map<string, number>();
    for (const p of state.partitions.values()) hw.set(p.key, p.hw);
    const owner = new Map<string, string>();
    for (const mem of state.members.values()) for (const tp of mem.owned) owner.set(`${mem.group ?? `${mem.consumer} (manual)`}\u0000${tp}`, mem.consumer);
    const rows = g.rows.map((r) => {
      const k = `${r.group}\u0000${r.tp}`;
      const c = state.committed.get(k);
      const end = hw.get(r.tp);
      return el('tr', {}, el('td', {}, r.group), el('td', {}, r.tp), el('td', {}, owner.get(k) ?? '-'), el('td', {}, c === undefined ? '-' : String(c)), el('td', {}, end === undefined ? '-' : String(end)), el('td', {}, c === undefined || end === undefined ? '-' : String(Math.max(0, end - c))));
    });
    const groups = [...state.groups.values()].filter((gs) => !state.consumerGroups.has(gs.group)).map((gs) => el('div', { class: 'group-line' }, el('b', {}, gs.group), ` ${gs.state ? `${gs.state} · ` : ''}generation ${gs.generation} · ${gs.members.length} member(s)${gs.lastRebalance ? ` · last rebalance ${rel(gs.lastRebalance.t, this.run!.model.t0)} (${gs.lastRebalance.reason})` : ''}`));
    replace(
      this.table,
      ...groups,
      ...this.reconciliation(state),
      el('table', {}, el('tr', {}, ...['group', 'partition', 'owner', 'committed', 'high watermark', 'lag'].map((h) => el('th', {}, h))), ...rows),
    );
  }

  /**
   * Consumer-protocol (KIP-848) groups at this moment: the group epoch and the target assignment's epoch, then
   * each member's epoch, reconciliation state and partitions: what it owns, what it must still revoke, what it
   * waits to receive (its target minus what it owns), so a reconciliation in progress reads row by row.
   */
  private reconciliation(state: ClusterState): HTMLElement[] {
    const clientOf = new Map<string, string>();
    for (const m of state.members.values()) if (m.memberId !== '') clientOf.set(m.memberId, m.consumer);
    const list = (tps: readonly string[]) => (tps.length === 0 ? '-' : tps.join(', '));
    const out: HTMLElement[] = [];
    for (const g of [...state.consumerGroups.values()].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0))) {
      const members = [...g.members.values()].sort((a, b) => ((clientOf.get(a.memberId) ?? a.memberId) < (clientOf.get(b.memberId) ?? b.memberId) ? -1 : 1));
      const reconciling = members.filter((m) => m.state !== 'STABLE' || m.memberEpoch !== g.groupEpoch).length;
      out.push(
        el(
          'div',
          { class: 'group-line', 'data-testid': `consumer-group-${g.group}` },
          el('b', {}, g.group),
          ` consumer protocol (KIP-848) · group epoch ${g.groupEpoch} · target assignment epoch ${g.assignmentEpoch}${g.assignor ? ` (${g.assignor})` : ''} · ${members.length} member(s)` +
            (reconciling > 0 ? ` · ${reconciling} reconciling` : ' · reconciled') +
            (g.lastEpochReason ? ` · last epoch bump: ${g.lastEpochReason}` : ''),
        ),
      );
      const rows = members.map((m) => {
        const owned = new Set(m.assigned);
        const revoking = new Set(m.revoking);
        const receiving = m.target.filter((tp) => !owned.has(tp) && !revoking.has(tp));
        return el(
          'tr',
          { class: m.state === 'STABLE' ? 'member-stable' : 'member-reconciling', 'data-testid': 'reconciliation-row', 'data-state': m.state },
          el('td', {}, clientOf.get(m.memberId) ?? m.memberId),
          el('td', {}, m.instanceId ?? '-'),
          el('td', {}, String(m.memberEpoch)),
          el('td', {}, m.state),
          el('td', {}, list(m.assigned)),
          el('td', { 'data-testid': 'revoking' }, list(m.revoking)),
          el('td', { 'data-testid': 'receiving' }, list(receiving)),
          el('td', {}, list(m.target)),
        );
      });
      out.push(
        el(
          'table',
          { class: 'reconciliation', 'data-testid': `reconciliation-${g.group}` },
          el('tr', {}, ...['member', 'instance', 'member epoch', 'state', 'owns', 'revoking', 'waiting to receive', 'target'].map((h) => el('th', {}, h))),
          ...rows,
        ),
      );
    }
    return out;
  }
}
