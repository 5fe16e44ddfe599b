import * as d3 from 'd3';
import { el, replace } from '../lib/dom';
import { epochColor, HIGHLIGHT, LOST, STATE_COLORS } from '../lib/colors';
import { rel, clamp } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import type { ClusterState, PartitionState, ReplicaState } from '../model/clusterState';
import { flushedAt } from '../model/clusterState';
import { chainToArray, durableEnd, findBatch, type BatchNode, type Removal } from '../model/replicaLog';
import type { Tooltip } from './tooltip';
import { tpKey } from '../../../sim/kafka/topicPartition';
import { currentMoment, divergence, storyMoments, type StoryMoment } from '../model/storyFocus';
import { consumerPolls, recordBatchesOf, type PollRange } from '../model/fetchBatches';
import { describeTxn, fenceText, transactionsOf } from '../model/transactions';

export interface PartitionViewHandlers {
  onSelectValue(value: string | null): void;
  onSelectPartition(key: string): void;
}

interface RowModel {
  readonly r: ReplicaState;
  readonly batches: BatchNode[];
  readonly durable: number;
  readonly hostStatus: string;
  readonly inIsr: boolean;
  readonly inElr: boolean;
  readonly removals: Removal[];
  /** The broker is powered off: what only its page cache held is gone. */
  readonly powerOff: boolean;
}

/** Offsets the view frames when it follows the story, and why (shown above the cells). */
interface Frame {
  readonly lo: number;
  readonly hi: number;
  readonly why: string;
}

interface Cell {
  readonly key: string;
  readonly row: number;
  readonly offset: number;
  readonly epoch: number;
  readonly value: string | null | undefined;
  readonly durable: boolean;
  readonly acked: boolean;
  readonly lost: boolean;
  readonly selected: boolean;
  readonly ghost: Removal | null;
  readonly appendT: number;
  /** Only in the page cache of a broker that lost power: lost. */
  readonly powerLost: boolean;
  /** A transaction marker's cell. */
  readonly control?: 'COMMIT' | 'ABORT';
  /** Compare mode: lost here but not in the other run, or kept here though lost there. */
  readonly diff: 'lost-here' | 'kept-here' | null;
}

const LABEL_W = 178;
const CELL_W = 22;

/** A replica row's geometry: the roomy one, or the compact one for short windows and compare panes. */
interface Dims {
  readonly cellH: number;
  readonly ghostH: number;
  readonly rowH: number;
  readonly overviewRow: number;
  /** Baselines of the row label's three lines. */
  readonly labelY: readonly [number, number, number];
  readonly compact: boolean;
}
const ROOMY: Dims = { cellH: 22, ghostH: 8, rowH: 40, overviewRow: 9, labelY: [10, 22, 33], compact: false };
const COMPACT: Dims = { cellH: 17, ghostH: 6, rowH: 31, overviewRow: 8, labelY: [9, 19, 28], compact: true };
/** Below this window height (px) the rows compact, as the stylesheet's cards do. */
const COMPACT_BELOW = 820;
/** The narrowest cell when the view zooms out to frame a story's offsets. */
const MIN_CELL_W = 0.6;
/** A transaction marker's cell: not a record, so no epoch colour. */
const MARKER_FILL = '#f4f1e8';

/**
 * One partition, replica by replica, as offset cells: colour = leader epoch the record was written in,
 * solid = on disk, pale = only in page cache, a ring = acknowledged to the producer; the high watermark
 * and each log end offset are marked; records a truncation removed sit in a red strip under the row.
 * An overview above shows every replica's whole log; drag in it to move the window of cells.
 */
export class PartitionView {
  private run: LoadedRun | null = null;
  private key = '';
  /** First offset of the window, or null to follow the log's tail. */
  private windowStart: number | null = null;
  private readonly header: HTMLDivElement;
  private readonly svg: d3.Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly select: HTMLSelectElement;
  private readonly stats: HTMLSpanElement;
  private readonly followBtn: HTMLButtonElement;
  private readonly focus: HTMLDivElement;
  private readonly batchStat: HTMLSpanElement;
  private readonly legend: HTMLDivElement;
  private dims: Dims = ROOMY;
  /** Consumer polls of the partition shown (read once per partition). */
  private polls: PollRange[] | null = null;
  private maxOffset = new Map<string, number>();
  private chainCache = new WeakMap<BatchNode, BatchNode[]>();
  private last: { state: ClusterState; now: number; selected: string | null } | null = null;
  private lastDivergence: { key: readonly (readonly BatchNode[])[]; ends: string; result: { lo: number; hi: number } | null } | null = null;
  /** The story moments of the partition shown (computed once per partition). */
  private moments: StoryMoment[] | null = null;
  /** The other side's run in compare mode: cells whose record fared differently there are marked. */
  private other: LoadedRun | null = null;
  /** Brokers whose rows a caption names (they pulse). */
  private pulse: readonly number[] = [];
  /** The transaction chosen by a click on one of its cells (its id in the run's transaction index). */
  private txnSel: number | null = null;
  private readonly txnInfo: HTMLDivElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly tooltip: Tooltip,
    private readonly handlers: PartitionViewHandlers,
  ) {
    this.select = el('select', { 'aria-label': 'partition', 'data-testid': 'partition-select' });
    this.select.addEventListener('change', () => this.handlers.onSelectPartition(this.select.value));
    this.stats = el('span', { class: 'pv-stats', 'data-testid': 'partition-stats' });
    this.followBtn = el('button', { class: 'small', title: 'Follow the end of the log (f)' }, 'follow tail');
    this.followBtn.addEventListener('click', () => this.follow());
    this.batchStat = el('span', { class: 'pv-batchstat dim', 'data-testid': 'batch-stat' });
    this.header = el('div', { class: 'pv-header' }, this.select, this.stats, this.batchStat, this.followBtn);
    root.appendChild(this.header);
    this.focus = el('div', { class: 'pv-focus', 'data-testid': 'pv-focus', hidden: true });
    root.appendChild(this.focus);
    this.txnInfo = el('div', { class: 'pv-txn', 'data-testid': 'txn-info', hidden: true });
    root.appendChild(this.txnInfo);
    this.svg = d3.select(root).append('svg').attr('class', 'pv-svg').attr('data-testid', 'partition-svg');
    const defs = this.svg.append('defs');
    const pat = defs.append('pattern').attr('id', `hatch-${root.id}`).attr('patternUnits', 'userSpaceOnUse').attr('width', 4).attr('height', 4).attr('patternTransform', 'rotate(45)');
    pat.append('rect').attr('width', 4).attr('height', 4).attr('fill', 'white').attr('fill-opacity', 0.55);
    pat.append('line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', 4).attr('stroke', '#777').attr('stroke-width', 1.2);
    // Records of an aborted transaction: hatched over their epoch colour (read_committed skips them).
    const ab = defs.append('pattern').attr('id', `abort-hatch-${root.id}`).attr('patternUnits', 'userSpaceOnUse').attr('width', 5).attr('height', 5).attr('patternTransform', 'rotate(-45)');
    ab.append('line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', 5).attr('stroke', '#c62828').attr('stroke-width', 1.6);
    const item = (cls: string, text: string) => el('span', { class: `lg ${cls}`, 'data-legend': cls }, text);
    this.legend = el(
      'div',
      { class: 'legend', 'data-testid': 'pv-legend' },
      item('solid', 'on disk'),
      item('pale', 'page cache only'),
      item('acked', 'acknowledged'),
      item('lost', 'acknowledged, later lost'),
      item('ghost', 'removed by truncation'),
      item('powerlost', 'lost in a power cut (was page cache only)'),
      item('edge', '▶ HW / LEO beyond the window'),
      item('diff-lost', 'compare: lost here, kept there'),
      item('diff-kept', 'compare: kept here, lost there'),
      item('hw', 'high watermark'),
      item('lso', 'last stable offset (an open transaction holds it)'),
      item('marker', 'C / A: transaction marker (commit / abort)'),
      item('aborted', 'hatched: record of an aborted transaction (click: its transaction)'),
      item('epochs', 'colour = leader epoch'),
      item('batch', 'outline = one record batch (as the producer sent it)'),
      item('fetch-follower', 'bracket under a row = one follower fetch'),
      item('fetch-consumer', 'bracket over the leader = one consumer poll'),
    );
    root.appendChild(this.legend);
  }

  /**
   * The legend names only the glyphs this run can draw (fixed for the run, so it does not jump during playback):
   * a short window keeps its cells on screen instead of a legend of things that never happen.
   */
  private fitLegend(run: LoadedRun | null): void {
    const kinds = new Set(run?.model.kinds ?? []);
    const lost = (run?.model.lost.size ?? 0) > 0;
    const txn = [...kinds].some((k) => k === 'replica.lso' || k.startsWith('txn.'));
    const shown: Record<string, boolean> = {
      lost,
      ghost: kinds.has('replica.truncate') || kinds.has('log.truncate'),
      powerlost: kinds.has('host.power-off') || kinds.has('disk.power-loss'),
      lso: txn,
      marker: txn,
      aborted: txn,
      'fetch-consumer': kinds.has('consumer.poll'),
    };
    for (const n of this.legend.querySelectorAll<HTMLElement>('[data-legend]')) n.hidden = shown[n.dataset['legend']!] === false;
  }

  setRun(run: LoadedRun | null, partitionKey: string | null): void {
    this.run = run;
    this.txnSel = null;
    this.fitLegend(run);
    this.maxOffset.clear();
    this.windowStart = null;
    this.moments = null;
    this.polls = null;
    const parts = run?.model.partitions ?? [];
    this.key = partitionKey && parts.some((p) => p.key === partitionKey) ? partitionKey : (parts[0]?.key ?? '');
    replace(this.select, ...parts.map((p) => el('option', { value: p.key, selected: p.key === this.key }, p.key)));
    this.select.hidden = parts.length <= 1;
  }

  setOther(run: LoadedRun | null): void {
    this.other = run;
  }

  setPulse(brokers: readonly number[]): void {
    if (brokers.length === this.pulse.length && brokers.every((b, k) => b === this.pulse[k])) return;
    this.pulse = brokers;
    this.svg.selectAll<SVGGElement, RowModel>('g.pv-row').classed('pulse', (d) => brokers.includes(d.r.broker));
  }

  get partitionKey(): string {
    return this.key;
  }

  setPartition(key: string): void {
    if (key === this.key) return;
    this.key = key;
    this.select.value = key;
    this.windowStart = null;
    this.moments = null;
    this.polls = null;
    this.rerender();
  }

  follow(): void {
    this.windowStart = null;
    this.rerender();
  }

  /** Shows the window around an offset (a chosen record). */
  focusOffset(offset: number): void {
    const cells = this.cellCount();
    this.windowStart = Math.max(0, offset - Math.floor(cells / 2));
    this.rerender();
  }

  private rerender(): void {
    if (this.last) this.render(this.last.state, this.last.now, this.last.selected);
  }

  private cellCount(): number {
    return Math.max(8, Math.floor(this.cellsWidth() / CELL_W));
  }

  /** The rows' divergence, computed again only when a replica's log changed (playback redraws one state often). */
  private divergenceOf(rows: readonly RowModel[]): { lo: number; hi: number } | null {
    const key = rows.map((r) => r.batches);
    const last = this.lastDivergence;
    if (last && last.key.length === key.length && last.key.every((b, k) => b === key[k]) && last.ends === rows.map((r) => `${r.r.logStart}:${r.r.leo}`).join()) return last.result;
    const result = divergence(rows.map((r) => ({ batches: r.batches, logStart: r.r.logStart, leo: r.r.leo })));
    this.lastDivergence = { key, ends: rows.map((r) => `${r.r.logStart}:${r.r.leo}`).join(), result };
    return result;
  }

  /** Pixels for the offset cells. */
  private cellsWidth(): number {
    return Math.max(400, (this.root.clientWidth || 800) - 8) - LABEL_W - 24;
  }

  /**
   * What the story is about at this moment, when the view follows it: the offsets a recent truncation removed, the
   * offsets a new leader lacks, the page cache a power loss emptied; else where two replicas disagree; else null
   * (the tail).
   */
  private storyFrame(state: ClusterState, rows: readonly RowModel[]): Frame | null {
    const run = this.run!;
    this.moments ??= storyMoments(run.model, this.key);
    const m = currentMoment(this.moments, state.i, this.last?.now ?? 0);
    const row = m ? rows.find((r) => r.r.broker === m.broker) : undefined;
    if (m && row) {
      if (m.kind === 'truncate') return { lo: m.lo, hi: m.hi, why: `${run.model.names.broker(m.broker)} truncated offsets ${m.lo}–${m.hi}` };
      if (m.kind === 'election') {
        const others = Math.max(...rows.filter((r) => r !== row).map((r) => r.r.leo));
        if (others > row.r.leo) return { lo: row.r.leo, hi: others - 1, why: `${run.model.names.broker(m.broker)} leads from offset ${row.r.leo}: offsets ${row.r.leo}–${others - 1} are only on other replicas` };
      }
      if (m.kind === 'power' && row.durable < row.r.leo) return { lo: row.durable, hi: row.r.leo - 1, why: `${run.model.names.broker(m.broker)} lost power: offsets ${row.durable}–${row.r.leo - 1} were only in its page cache` };
    }
    const d = this.divergenceOf(rows);
    return d ? { lo: d.lo, hi: d.hi, why: `the replicas hold different records at offsets ${d.lo}–${d.hi}` } : null;
  }

  private batchesOf(r: ReplicaState): BatchNode[] {
    if (!r.tip) return [];
    let a = this.chainCache.get(r.tip);
    if (!a) {
      a = chainToArray(r.tip);
      this.chainCache.set(r.tip, a);
    }
    return a;
  }

  private maxOffsetOf(key: string): number {
    let m = this.maxOffset.get(key);
    if (m === undefined) {
      m = 1;
      const events = this.run?.model.events ?? [];
      for (const e of events) {
        if ((e.kind === 'replica.append' || e.kind === 'final.partition') && `${String(e['topic'])}-${String(e['partition'])}` === key) {
          const end = e.kind === 'replica.append' ? (e['last'] as number) + 1 : (e['logEndOffset'] as number);
          if (typeof end === 'number' && end > m) m = end;
        }
      }
      this.maxOffset.set(key, m);
    }
    return m;
  }

  render(state: ClusterState, now: number, selected: string | null): void {
    this.last = { state, now, selected };
    const run = this.run;
    const p = run ? state.partitions.get(this.key) : undefined;
    if (!run || !p) {
      this.stats.textContent = run ? 'This run has no partitions.' : '';
      this.focus.hidden = true;
      this.txnInfo.hidden = true;
      this.svg.selectAll('*:not(defs):not(defs *)').remove();
      return;
    }
    const model = run.model;
    // Short windows and the half-width compare panes get compact rows, so every replica's cells fit on screen.
    this.dims = window.innerHeight < COMPACT_BELOW || this.other !== null ? COMPACT : ROOMY;
    this.svg.classed('pv-compact', this.dims.compact);
    const rows = this.rowModels(run, state, p, now);
    const width = Math.max(400, this.root.clientWidth - 8);
    const maxLeo = Math.max(0, ...rows.map((r) => r.r.leo));
    const minStart = Math.min(...rows.map((r) => r.r.logStart));
    // Following: the story's offsets (zoomed out to fit them), else the tail, or, when the leader runs far ahead
    // of the high watermark, the place where the copies stop agreeing.
    const frame = this.windowStart === null ? this.storyFrame(state, rows) : null;
    let cells = this.cellCount();
    let start: number;
    if (frame) {
      const span = frame.hi - frame.lo + 1;
      const margin = Math.max(3, Math.ceil(span * 0.06));
      cells = Math.min(Math.max(cells, span + 2 * margin), Math.floor(this.cellsWidth() / MIN_CELL_W));
      start = Math.max(0, frame.lo - Math.max(Math.min(margin, cells - span), Math.floor((cells - span) / 2)));
    } else start = this.windowStart ?? Math.max(minStart, Math.min(p.hw - 6, maxLeo + 3 - cells));
    const end = start + cells;
    this.svg.attr('data-start', start).attr('data-end', end);
    const cw = frame ? this.cellsWidth() / cells : CELL_W;
    this.followBtn.disabled = this.windowStart === null;
    const selInfo = selected ? model.values.get(selected) : undefined;

    // Header text.
    const leaderRow = rows.find((r) => r.r.broker === p.leader);
    const elect = p.lastElection ? ` · elected at ${rel(p.lastElection.t, model.t0)} from ${p.lastElection.source}` : '';
    const created = p.leaderEpoch >= 0 || rows.some((r) => r.r.role !== 'none' || r.r.leo > 0);
    if (!created) {
      this.stats.replaceChildren(el('b', {}, this.key), ' · not created yet at this moment', el('span', { 'data-testid': 'hw', 'data-hw': '0', hidden: true }, 'HW 0'));
    } else this.stats.replaceChildren(
      el('b', {}, this.key),
      ` · leader ${p.leader >= 0 ? model.names.broker(p.leader) : 'none'} · epoch ${p.leaderEpoch} · ISR {${p.isr.join(',')}}${p.elr.length ? ` · ELR {${p.elr.join(',')}}` : ''} · `,
      el('span', { 'data-testid': 'hw', 'data-hw': String(p.hw) }, `HW ${p.hw}`),
      ...(p.lso !== null ? [' · ', el('span', { 'data-testid': 'lso', 'data-lso': String(p.lso) }, `LSO ${p.lso}`)] : []),
      ` · LEO ${leaderRow ? leaderRow.r.leo : '-'}${elect}`,
    );

    const ovTop = 18;
    const ovH = rows.length * this.dims.overviewRow + 14;
    const detTop = ovTop + ovH + 26;
    const height = detTop + rows.length * this.dims.rowH + 6;
    this.svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);

    // ---- overview ----
    const total = Math.max(this.maxOffsetOf(this.key), maxLeo + 1);
    const ox = d3.scaleLinear().domain([0, total]).range([LABEL_W, width - 12]);
    const ov = this.group('overview');
    ov.selectAll('*').remove();
    ov.append('text').attr('class', 'pv-caption').attr('x', 4).attr('y', ovTop - 6).text(`whole log (0..${total}) — drag to move the window`);
    const bars: { y: number; x0: number; x1: number; fill: string; pale: boolean; title: string }[] = [];
    rows.forEach((row, ri) => {
      const y = ovTop + ri * this.dims.overviewRow;
      ov.append('text').attr('class', 'pv-ovlabel').attr('x', LABEL_W - 6).attr('y', y + this.dims.overviewRow - 2).attr('text-anchor', 'end').text(model.names.broker(row.r.broker));
      let runStart = -1;
      let runEpoch = -2;
      let runEnd = -1;
      const flushRun = () => {
        if (runStart < 0) return;
        bars.push({ y, x0: runStart, x1: runEnd, fill: epochColor(runEpoch), pale: false, title: `epoch ${runEpoch}: offsets ${runStart}..${runEnd - 1}` });
      };
      for (const b of row.batches) {
        const s = Math.max(b.base, row.r.logStart);
        if (b.last < s) continue;
        if (b.epoch === runEpoch && s === runEnd) runEnd = b.last + 1;
        else {
          flushRun();
          runStart = s;
          runEnd = b.last + 1;
          runEpoch = b.epoch;
        }
      }
      flushRun();
      if (row.durable < row.r.leo) bars.push({ y, x0: Math.max(row.durable, row.r.logStart), x1: row.r.leo, fill: `url(#hatch-${this.root.id})`, pale: true, title: `offsets ${row.durable}..${row.r.leo - 1} only in page cache` });
    });
    ov.selectAll('rect.ovbar')
      .data(bars)
      .join('rect')
      .attr('class', 'ovbar')
      .attr('x', (d) => ox(d.x0))
      .attr('y', (d) => d.y)
      .attr('width', (d) => Math.max(1, ox(d.x1) - ox(d.x0)))
      .attr('height', this.dims.overviewRow - 2)
      .attr('fill', (d) => d.fill)
      .append('title')
      .text((d) => d.title);
    const lostHere = model.lostByPartition.get(this.key) ?? [];
    const lostY = ovTop + rows.length * this.dims.overviewRow + 1;
    if (lostHere.length > 0) {
      ov.append('text').attr('class', 'pv-ovlabel lost').attr('x', LABEL_W - 6).attr('y', lostY + 8).attr('text-anchor', 'end').text(`${lostHere.length} lost`);
      const xs = [...new Set(lostHere.map((l) => Math.round(ox(l.offset))))];
      ov.append('path')
        .attr('class', 'pv-lost-ticks')
        .attr('d', xs.map((x) => `M${x},${lostY}v8`).join(''))
        .attr('stroke', LOST);
    }
    ov.append('line').attr('class', 'pv-hwline').attr('x1', ox(p.hw)).attr('x2', ox(p.hw)).attr('y1', ovTop - 3).attr('y2', ovTop + rows.length * this.dims.overviewRow);
    if (selInfo && selInfo.offset >= 0 && tpKey(selInfo.topic, selInfo.partition) === this.key) {
      ov.append('path').attr('class', 'pv-sel-mark').attr('d', `M${ox(selInfo.offset)},${ovTop - 2}l-4,-6h8z`).attr('fill', HIGHLIGHT);
    }
    const win = ov
      .append('rect')
      .attr('class', 'pv-window')
      .attr('x', ox(start))
      .attr('y', ovTop - 3)
      .attr('width', Math.max(3, ox(end) - ox(start)))
      .attr('height', rows.length * this.dims.overviewRow + 4);
    const drag = (event: { x: number }) => {
      const center = ox.invert(event.x);
      this.windowStart = Math.round(clamp(center - cells / 2, 0, Math.max(0, total - cells + 3)));
      this.rerender();
    };
    const hit = ov
      .insert('rect', ':first-child')
      .attr('class', 'pv-ovhit')
      .attr('x', LABEL_W)
      .attr('y', ovTop - 4)
      .attr('width', width - LABEL_W - 12)
      .attr('height', rows.length * this.dims.overviewRow + 16);
    hit.call(d3.drag<SVGRectElement, unknown>().on('start drag', drag));
    win.call(d3.drag<SVGRectElement, unknown>().on('start drag', drag));

    // ---- detail: offset cells ----
    const det = this.group('detail');
    // Zoomed out to frame a story, cells are too thin for outlines: colour alone tells them apart.
    det.classed('pv-zoomed', cw < 6);
    const x = (o: number) => LABEL_W + (o - start) * cw;
    const ticks: number[] = [];
    const every = [5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000].find((k) => k * cw >= 44) ?? 20000;
    for (let o = Math.ceil(start / every) * every; o < end; o += every) ticks.push(o);
    det
      .selectAll('text.pv-offset')
      .data(ticks)
      .join('text')
      .attr('class', 'pv-offset')
      .attr('x', (o) => x(o) + cw / 2)
      .attr('y', detTop - 8)
      .attr('text-anchor', 'middle')
      .text((o) => String(o));
    det.selectAll('text.pv-offset-title').data([0]).join('text').attr('class', 'pv-offset-title pv-caption').attr('x', 4).attr('y', detTop - 8).text('offset →');
    // What the window frames, as a line above the cells (text wraps in a narrow compare pane).
    this.focus.hidden = !frame;
    this.focus.textContent = frame ? `following the story: ${frame.why}` : '';
    this.focus.dataset['lo'] = frame ? String(frame.lo) : '';
    this.focus.dataset['hi'] = frame ? String(frame.hi) : '';

    // Transaction markers by offset, from the replicas that appended them as leaders (a follower's append
    // event covers a whole fetch, markers among its batches): the same offset in the same epoch is the marker.
    const markerAt = new Map<number, { control: 'COMMIT' | 'ABORT'; epoch: number }>();
    for (const row of rows) {
      for (const b of row.batches) if (b.control && b.last >= start && b.base < end) markerAt.set(b.base, { control: b.control, epoch: b.epoch });
    }
    const other = this.other?.model;
    const diffOf = (value: string | null | undefined): Cell['diff'] => {
      if (!other || typeof value !== 'string') return null;
      const here = model.isLost(value);
      const there = other.isLost(value);
      return here && !there ? 'lost-here' : !here && there ? 'kept-here' : null;
    };
    const all: Cell[] = [];
    rows.forEach((row, ri) => {
      const r = row.r;
      for (let o = Math.max(start, r.logStart); o < Math.min(end, r.leo); o++) {
        const j = findBatch(row.batches, o);
        if (j < 0) continue;
        const b = row.batches[j]!;
        const value = model.valueAt(this.key, b.epoch, o);
        const ackT = typeof value === 'string' ? model.values.ackTime(value) : -1;
        all.push({
          key: `${ri}:${o}`,
          row: ri,
          offset: o,
          epoch: b.epoch,
          value,
          durable: o < row.durable,
          acked: ackT >= 0 && ackT <= now,
          lost: model.isLost(value),
          selected: selected !== null && value === selected,
          ghost: null,
          appendT: b.t,
          powerLost: row.powerOff && o >= row.durable,
          ...(markerAt.get(o)?.epoch === b.epoch && { control: markerAt.get(o)!.control }),
          diff: diffOf(value),
        });
      }
      // Removed records (newest removal wins an offset).
      const seen = new Set<number>();
      for (const rm of row.removals) {
        for (const b of rm.batches) {
          for (let o = Math.max(start, b.base); o <= Math.min(end - 1, b.last); o++) {
            if (seen.has(o)) continue;
            seen.add(o);
            const value = model.valueAt(this.key, b.epoch, o);
            all.push({ key: `g${ri}:${o}`, row: ri, offset: o, epoch: b.epoch, value, durable: false, acked: false, lost: model.isLost(value), selected: selected !== null && value === selected, ghost: rm, appendT: -1, powerLost: false, diff: diffOf(value) });
          }
        }
      }
    });

    // Row labels and backgrounds.
    const rowG = det
      .selectAll<SVGGElement, RowModel>('g.pv-row')
      .data(rows, (d) => String(d.r.broker))
      .join((enter) => {
        const g = enter.append('g').attr('class', 'pv-row');
        g.append('rect').attr('class', 'pv-rowbg');
        g.append('text').attr('class', 'pv-rowname');
        g.append('text').attr('class', 'pv-rowsub');
        g.append('text').attr('class', 'pv-rowsub2');
        g.append('rect').attr('class', 'pv-state-dot');
        return g;
      })
      .attr('transform', (_d, i) => `translate(0,${detTop + i * this.dims.rowH})`)
      .classed('pulse', (d) => this.pulse.includes(d.r.broker))
      .attr('data-testid', (d) => `replica-row-${d.r.broker}`);
    rowG
      .select('rect.pv-rowbg')
      .attr('x', LABEL_W - 2)
      .attr('y', -2)
      .attr('width', Math.min(width - LABEL_W - 8, cells * cw + 4))
      .attr('height', this.dims.cellH + 4)
      .attr('class', (d) => `pv-rowbg ${d.hostStatus !== 'up' ? 'down' : ''}`);
    rowG
      .select('rect.pv-state-dot')
      .attr('x', 4)
      .attr('y', 3)
      .attr('width', 8)
      .attr('height', 8)
      .attr('rx', 4)
      .attr('fill', (d) => STATE_COLORS[d.hostStatus] ?? '#999');
    rowG
      .select('text.pv-rowname')
      .attr('x', 16)
      .attr('y', this.dims.labelY[0])
      .text((d) => `${model.names.broker(d.r.broker)} · ${d.r.broker === p.leader ? 'leader' : d.r.role === 'leader' ? 'old leader' : d.r.role === 'none' ? 'no role' : 'follower'}`);
    rowG
      .select('text.pv-rowsub')
      .attr('x', 16)
      .attr('y', this.dims.labelY[1])
      .text((d) => `LEO ${d.r.leo} · ${d.inIsr ? 'in ISR' : d.inElr ? 'in ELR' : 'not in ISR'}`)
      .attr('class', (d) => `pv-rowsub ${d.inIsr ? '' : 'out'}`);
    rowG
      .select('text.pv-rowsub2')
      .attr('x', 16)
      .attr('y', this.dims.labelY[2])
      .text((d) => `${d.hostStatus} · ${d.r.leo <= d.r.logStart ? 'empty' : d.durable <= d.r.logStart ? 'nothing on disk yet' : d.durable >= d.r.leo ? 'all on disk' : `on disk below ${d.durable}`}`)
      .attr('class', (d) => `pv-rowsub2 ${d.hostStatus !== 'up' ? 'down' : ''}`);

    const gap = cw >= 8 ? 2 : cw >= 3 ? 1 : 0;
    const txnAt = transactionsOf(model.events).at.get(this.key) ?? new Map();
    const cellSel = det
      .selectAll<SVGRectElement, Cell>('rect.cell')
      .data(all, (d) => d.key)
      .join('rect')
      .attr('x', (d) => x(d.offset) + gap / 2)
      .attr('y', (d) => detTop + d.row * this.dims.rowH + (d.ghost ? this.dims.cellH + 2 : 0))
      .attr('width', Math.max(0.5, cw - gap))
      .attr('height', (d) => (d.ghost ? this.dims.ghostH - 1 : this.dims.cellH))
      .attr('rx', cw >= 8 ? 2 : 0)
      .attr('fill', (d) => (d.ghost ? LOST : d.powerLost ? '#fff' : d.control ? MARKER_FILL : epochColor(d.epoch)))
      .attr('fill-opacity', (d) => (d.ghost ? 0.55 : d.powerLost ? 1 : d.durable ? 1 : 0.35))
      .attr('class', (d) => `cell${d.control ? ` marker ${d.control.toLowerCase()}` : ''}${d.ghost ? ' ghost' : ''}${d.durable ? ' durable' : ' cached'}${d.powerLost ? ' powerlost' : ''}${d.lost ? ' lost' : ''}${d.selected ? ' selected' : ''}${d.acked ? ' acked' : ''}`)
      .attr('data-testid', (d) => (d.selected ? 'highlight' : null))
      .attr('data-offset', (d) => d.offset)
      .attr('data-broker', (d) => rows[d.row]!.r.broker);
    cellSel
      .on('mousemove', (ev: MouseEvent, d) => this.tooltip.show(ev.clientX, ev.clientY, `offset ${d.offset} on ${model.names.broker(rows[d.row]!.r.broker)}`, this.cellLines(d, now).map((l) => model.names.text(l))))
      .on('mouseleave', () => this.tooltip.hide())
      .on('click', (_ev, d) => {
        const t = d.ghost ? undefined : txnAt.get(d.offset);
        if (t) this.txnSel = this.txnSel === t.id ? null : t.id;
        else this.txnSel = null;
        if (typeof d.value === 'string') this.handlers.onSelectValue(d.value === selected ? null : d.value);
        else this.rerender();
      });
    this.drawTransactions(det, all, rows, x, cw, gap, detTop, now);

    // Transaction markers: C or A on their cell (when cells are wide enough for a letter).
    det
      .selectAll<SVGTextElement, Cell>('text.marker')
      .data(
        cw >= 9 ? all.filter((d) => d.control !== undefined) : [],
        (d) => d.key,
      )
      .join('text')
      .attr('class', (d) => `marker ${d.control!.toLowerCase()}`)
      .attr('x', (d) => x(d.offset) + cw / 2)
      .attr('y', (d) => detTop + d.row * this.dims.rowH + this.dims.cellH / 2 + 4)
      .attr('text-anchor', 'middle')
      .attr('pointer-events', 'none')
      .text((d) => (d.control === 'COMMIT' ? 'C' : 'A'));

    // Acknowledged rings and lost marks, drawn over the cells.
    const marks = cw >= 9 ? all.filter((d) => !d.ghost && (d.acked || d.lost)) : [];
    det
      .selectAll<SVGCircleElement, Cell>('circle.ackdot')
      .data(marks, (d) => d.key)
      .join('circle')
      .attr('class', (d) => `ackdot${d.lost && d.acked ? ' lost' : ''}`)
      .attr('cx', (d) => x(d.offset) + cw / 2)
      .attr('cy', (d) => detTop + d.row * this.dims.rowH + this.dims.cellH / 2)
      .attr('r', (d) => (d.acked ? 4 : 2))
      .attr('pointer-events', 'none');
    // Record batches as outlines (a producer batch stays one batch on every replica): what linger.ms and batch.size make.
    // Batch layers: the producer's record batches on every replica (a follower copies them whole), and what each
    // fetch returned: a follower's fetch (under its cells) and a consumer's poll (over the leader's cells).
    const batchBoxes: { key: string; ri: number; x0: number; x1: number; n: number; base: number; last: number }[] = [];
    const fetchBoxes: { key: string; ri: number; x0: number; x1: number; base: number; last: number; kind: 'follower' | 'consumer'; who: string; n: number }[] = [];
    const clip = (row: RowModel, base: number, last: number) => ({ lo: Math.max(base, start, row.r.logStart), hi: Math.min(last, end - 1, row.r.leo - 1) });
    if (cw >= 4) {
      rows.forEach((row, ri) => {
        // From the first batch that reaches the window (batches are in offset order).
        const bs = row.batches;
        let k0 = 0;
        for (let lo = 0, hi = bs.length - 1; lo <= hi; ) {
          const mid = (lo + hi) >> 1;
          if (bs[mid]!.last < start) lo = k0 = mid + 1;
          else hi = mid - 1;
        }
        for (let k = k0; k < bs.length && bs[k]!.base < end; k++) {
          const b = bs[k]!;
          if (b.last < row.r.logStart) continue;
          const { lo, hi } = clip(row, b.base, b.last);
          if (hi < lo) continue;
          if (b.fetched) fetchBoxes.push({ key: `f${ri}:${b.base}`, ri, x0: x(lo), x1: x(hi + 1), base: b.base, last: b.last, kind: 'follower', who: `broker-${row.r.broker}`, n: b.last - b.base + 1 });
          for (const rb of recordBatchesOf(model, this.key, b, lo, hi)) {
            const c = { lo: Math.max(lo, rb.base), hi: Math.min(hi, rb.last) };
            if (c.hi >= c.lo) batchBoxes.push({ key: `${ri}:${rb.base}`, ri, x0: x(c.lo), x1: x(c.hi + 1), n: rb.last - rb.base + 1, base: rb.base, last: rb.last });
          }
        }
      });
      // Consumer polls so far, on the row of the broker that leads now (fetches go to the leader).
      const li = rows.findIndex((r) => r.r.broker === p.leader);
      if (li >= 0) {
        this.polls ??= consumerPolls(model, this.key);
        for (const poll of this.polls) {
          if (poll.i > state.i) break;
          const { lo, hi } = clip(rows[li]!, poll.lo, poll.hi);
          if (hi >= lo) fetchBoxes.push({ key: `c${poll.i}:${poll.consumer}`, ri: li, x0: x(lo), x1: x(hi + 1), base: poll.lo, last: poll.hi, kind: 'consumer', who: poll.consumer, n: poll.count });
        }
      }
    }
    det
      .selectAll<SVGRectElement, (typeof batchBoxes)[number]>('rect.batch')
      .data(batchBoxes, (d) => d.key)
      .join('rect')
      .attr('class', 'batch')
      .attr('data-testid', 'batch')
      .attr('data-records', (d) => d.n)
      .attr('data-base', (d) => d.base)
      .attr('data-last', (d) => d.last)
      .attr('data-broker', (d) => rows[d.ri]!.r.broker)
      .attr('x', (d) => d.x0 + 0.5)
      .attr('y', (d) => detTop + d.ri * this.dims.rowH - 1.5)
      .attr('width', (d) => Math.max(1, d.x1 - d.x0 - 1))
      .attr('height', this.dims.cellH + 3)
      .attr('rx', 3)
      .attr('pointer-events', 'none');
    // A fetch as a bracket: a follower's under its cells (opening up), a consumer's over the leader's (opening down).
    det
      .selectAll<SVGPathElement, (typeof fetchBoxes)[number]>('path.fetch')
      .data(fetchBoxes, (d) => d.key)
      .join('path')
      .attr('class', (d) => `fetch ${d.kind}`)
      .attr('data-testid', (d) => `fetch-${d.kind}`)
      .attr('data-who', (d) => d.who)
      .attr('data-base', (d) => d.base)
      .attr('data-last', (d) => d.last)
      .attr('data-broker', (d) => rows[d.ri]!.r.broker)
      .attr('d', (d) => {
        const top = detTop + d.ri * this.dims.rowH;
        const w = Math.max(1, d.x1 - d.x0 - 2);
        return d.kind === 'follower' ? `M${d.x0 + 1},${top + this.dims.cellH + 1}v3h${w}v-3` : `M${d.x0 + 1},${top - 2}v-3h${w}v3`;
      })
      .attr('pointer-events', 'none');
    const leaderBatches = (rows.find((r) => r.r.broker === p.leader)?.batches ?? []).filter((b) => !b.fetched);
    const recent = leaderBatches.slice(-200);
    const perBatch = recent.length > 0 ? recent.reduce((n, b) => n + (b.last - b.base + 1), 0) / recent.length : 0;
    this.batchStat.textContent = recent.length > 0 ? ` · ${perBatch.toFixed(1)} records per batch (last ${recent.length} on the leader)` : '';
    // Compare: a bar over each cell whose record fared otherwise in the other run.
    det
      .selectAll<SVGRectElement, Cell>('rect.diffmark')
      .data(all.filter((d) => d.diff !== null), (d) => d.key)
      .join('rect')
      .attr('class', (d) => `diffmark ${d.diff}`)
      .attr('data-testid', (d) => (d.diff === 'lost-here' ? 'diff-lost' : 'diff-kept'))
      .attr('x', (d) => x(d.offset))
      .attr('y', (d) => detTop + d.row * this.dims.rowH + (d.ghost ? this.dims.cellH + this.dims.ghostH : -4))
      .attr('width', Math.max(0.6, cw))
      .attr('height', 3)
      .attr('pointer-events', 'none');
    // The selected record's outline, above everything.
    det
      .selectAll<SVGRectElement, Cell>('rect.selring')
      .data(all.filter((d) => d.selected), (d) => d.key)
      .join('rect')
      .attr('class', 'selring')
      .attr('x', (d) => x(d.offset) - 1)
      .attr('y', (d) => detTop + d.row * this.dims.rowH + (d.ghost ? this.dims.cellH : -2))
      .attr('width', Math.max(4, cw + 2))
      .attr('height', (d) => (d.ghost ? this.dims.ghostH + 3 : this.dims.cellH + 4))
      .attr('rx', 3)
      .attr('pointer-events', 'none');

    // High watermark and log end offsets.
    const hwX = p.hw >= start && p.hw <= end ? x(p.hw) : null;
    det
      .selectAll('line.hw')
      .data(hwX === null ? [] : [hwX])
      .join('line')
      .attr('class', 'hw')
      .attr('x1', (d) => d)
      .attr('x2', (d) => d)
      .attr('y1', detTop - 4)
      .attr('y2', detTop + rows.length * this.dims.rowH - 8);
    det
      .selectAll('text.hwlabel')
      .data(hwX === null ? [] : [hwX])
      .join('text')
      .attr('class', 'hwlabel')
      .attr('x', (d) => d + 3)
      .attr('y', detTop + rows.length * this.dims.rowH - 2)
      .text(`HW ${p.hw}`);
    // The last stable offset, while an open transaction holds it below the HW: read_committed stops there.
    const lsoX = p.lso !== null && p.lso >= start && p.lso <= end ? x(p.lso) : null;
    det
      .selectAll('line.lso')
      .data(lsoX === null ? [] : [lsoX])
      .join('line')
      .attr('class', 'lso')
      .attr('data-testid', 'lso-line')
      .attr('x1', (d) => d)
      .attr('x2', (d) => d)
      .attr('y1', detTop - 4)
      .attr('y2', detTop + rows.length * this.dims.rowH - 8);
    det
      .selectAll('text.lsolabel')
      .data(lsoX === null ? [] : [lsoX])
      .join('text')
      .attr('class', 'lsolabel')
      .attr('x', (d) => d + 3)
      .attr('y', detTop - 14)
      .text(`LSO ${p.lso}`);
    const leos = rows.map((row, ri) => ({ ri, leo: row.r.leo })).filter((l) => l.leo >= start && l.leo <= end);
    det
      .selectAll('path.leo')
      .data(leos)
      .join('path')
      .attr('class', 'leo')
      .attr('d', (l) => `M${x(l.leo) + 2},${detTop + l.ri * this.dims.rowH + this.dims.cellH / 2}l6,-5v10z`)
      .append('title')
      .text((l) => `log end offset ${l.leo}`);
    // Off-window: the high watermark and each log end offset get a marker at the edge they lie beyond.
    const right = LABEL_W + cells * cw;
    const hwEdge = p.hw < start ? { x: LABEL_W + 2, anchor: 'start', text: `◀ HW ${p.hw}` } : p.hw > end ? { x: right - 2, anchor: 'end', text: `HW ${p.hw} ▶` } : null;
    det
      .selectAll('text.hw-edge')
      .data(hwEdge ? [hwEdge] : [])
      .join('text')
      .attr('class', 'hw-edge')
      .attr('data-testid', 'hw-edge')
      .attr('x', (d) => d.x)
      .attr('y', detTop + rows.length * this.dims.rowH - 2)
      .attr('text-anchor', (d) => d.anchor)
      .text((d) => d.text);
    const leoEdges = rows.flatMap((row, ri) => (row.r.leo > end ? [{ ri, broker: row.r.broker, x: right - 2, anchor: 'end', text: `LEO ${row.r.leo} ▶` }] : row.r.leo < start && row.r.leo > row.r.logStart ? [{ ri, broker: row.r.broker, x: LABEL_W + 2, anchor: 'start', text: `◀ LEO ${row.r.leo}` }] : []));
    det
      .selectAll('text.leo-edge')
      .data(leoEdges)
      .join('text')
      .attr('class', 'leo-edge')
      .attr('data-testid', (d) => `leo-edge-${d.broker}`)
      .attr('x', (d) => d.x)
      .attr('y', (d) => detTop + d.ri * this.dims.rowH + this.dims.cellH / 2 + 4)
      .attr('text-anchor', (d) => d.anchor)
      .text((d) => d.text);
    if (minStart > start) {
      det
        .selectAll('rect.deleted')
        .data([0])
        .join('rect')
        .attr('class', 'deleted')
        .attr('x', x(start))
        .attr('y', detTop - 2)
        .attr('width', (minStart - start) * cw)
        .attr('height', rows.length * this.dims.rowH - 8);
    } else det.selectAll('rect.deleted').remove();
  }

  /**
   * Transactions over the cells: records of a transaction aborted by now hatched; the chosen transaction's
   * records and markers outlined together, named in a line above the cells; fenced epochs of the producers
   * writing here named too.
   */
  private drawTransactions(
    det: d3.Selection<SVGGElement, unknown, null, undefined>,
    all: readonly Cell[],
    rows: readonly RowModel[],
    x: (o: number) => number,
    cw: number,
    gap: number,
    detTop: number,
    now: number,
  ): void {
    const idx = transactionsOf(this.run!.model.events);
    const txnAt = idx.at.get(this.key);
    const live = all.filter((d) => !d.ghost && d.control === undefined);
    const aborted = txnAt ? live.filter((d) => {
      const t = txnAt.get(d.offset);
      return t !== undefined && t.outcome === 'ABORT' && t.decidedT !== null && t.decidedT <= now;
    }) : [];
    det
      .selectAll<SVGRectElement, Cell>('rect.aborted')
      .data(aborted, (d) => d.key)
      .join('rect')
      .attr('class', 'aborted')
      .attr('data-offset', (d) => d.offset)
      .attr('data-broker', (d) => rows[d.row]!.r.broker)
      .attr('x', (d) => x(d.offset) + gap / 2)
      .attr('y', (d) => detTop + d.row * this.dims.rowH)
      .attr('width', Math.max(0.5, cw - gap))
      .attr('height', this.dims.cellH)
      .attr('fill', `url(#abort-hatch-${this.root.id})`)
      .attr('pointer-events', 'none');
    const sel = this.txnSel === null ? undefined : idx.txns[this.txnSel];
    det.selectAll<SVGRectElement, Cell>('rect.cell').classed('txn-hl', (d) => sel !== undefined && !d.ghost && txnAt?.get(d.offset) === sel);
    const lines: string[] = [];
    if (sel) lines.push(describeTxn(sel, idx, now));
    // Producers that wrote to this partition and were fenced by now.
    const writers = new Set<string>();
    for (const t of txnAt?.values() ?? []) writers.add(t.transactionalId);
    for (const f of idx.fences) {
      if (f.t > now || !writers.has(f.transactionalId)) continue;
      if (sel && sel.transactionalId === f.transactionalId && sel.epoch === f.epoch) continue;
      lines.push(`transactional.id ${f.transactionalId} (producer id ${f.producerId}): ${fenceText(f)}`);
    }
    this.txnInfo.hidden = lines.length === 0;
    this.txnInfo.replaceChildren(...lines.map((l, k) => el('div', { 'data-testid': k === 0 && sel ? 'txn-selected' : 'txn-fence' }, l)));
  }

  private group(name: string): d3.Selection<SVGGElement, unknown, null, undefined> {
    let g = this.svg.select<SVGGElement>(`g.${name}`);
    if (g.empty()) g = this.svg.append('g').attr('class', name);
    return g;
  }

  private rowModels(run: LoadedRun, state: ClusterState, p: PartitionState, now: number): RowModel[] {
    const model = run.model;
    const rows: RowModel[] = [];
    for (const r of [...p.replicas.values()].sort((a, b) => a.broker - b.broker)) {
      const batches = this.batchesOf(r);
      const lane = model.laneIndex.get(`broker-${r.broker}`);
      let hostStatus: string = lane === undefined ? 'up' : (state.hosts[lane] ?? 'up');
      // A powered-off machine writes nothing back: what was on disk when the power went is all there is.
      const powerOff = hostStatus === 'powered off';
      const asOf = powerOff && lane !== undefined ? Math.min(now, state.hostSince[lane] ?? now) : now;
      const durable = Math.max(r.logStart, durableEnd(batches, r.leo, flushedAt(r, asOf), asOf, model.writebackUs));
      if (hostStatus === 'up' && state.fenced.get(r.broker) === true) hostStatus = 'fenced';
      const removals: Removal[] = [];
      for (let rm = r.removed; rm; rm = rm.prev) removals.push(rm);
      rows.push({ r, batches, durable, hostStatus, inIsr: p.isr.includes(r.broker), inElr: p.elr.includes(r.broker), removals, powerOff });
    }
    return rows;
  }

  private cellLines(d: Cell, now: number): string[] {
    const run = this.run!;
    const model = run.model;
    const t0 = model.t0;
    const lines: string[] = [];
    if (d.control) {
      // A marker is no record: consumers never see it; it ends a transaction in this partition.
      lines.push(`${d.control} marker: the transaction coordinator ${d.control === 'COMMIT' ? 'committed' : 'aborted'} a transaction here (read_committed ${d.control === 'COMMIT' ? 'returns' : 'skips'} its records)`);
      lines.push(`written in leader epoch ${d.epoch}`);
      if (d.appendT >= 0) lines.push(`appended here at ${rel(d.appendT, t0)}`);
      return lines;
    }
    const info = typeof d.value === 'string' ? model.values.get(d.value) : undefined;
    lines.push(`value ${d.value === null ? 'null (tombstone)' : (d.value ?? 'unknown (no leader append traced)')}${info?.key !== undefined && info?.key !== null ? ` · key ${info.key}` : ''}`);
    lines.push(`written in leader epoch ${d.epoch}`);
    if (d.ghost) {
      lines.push(`removed at ${rel(d.ghost.t, t0)}: ${d.ghost.reason}`);
    } else {
      if (d.appendT >= 0) lines.push(`appended here at ${rel(d.appendT, t0)}`);
      lines.push(d.powerLost ? 'LOST IN THE POWER CUT: it was only in the page cache' : d.durable ? 'on disk (fsynced or written back)' : 'only in the page cache: a power loss would lose it');
    }
    if (info) {
      if (info.ackT >= 0) lines.push(info.ackT <= now ? `acknowledged to ${info.producer} at ${rel(info.ackT, t0)} (acks=${info.acks})` : `will be acknowledged at ${rel(info.ackT, t0)}`);
      else if (info.failT >= 0) lines.push(`the send failed: ${info.error}`);
      else lines.push('never acknowledged');
    }
    if (info && info.readT >= 0) lines.push(`first read by ${info.reader} at ${rel(info.readT, t0)}`);
    if (d.lost) lines.push('LOST: acknowledged, but not in the final log');
    if (d.diff === 'lost-here') lines.push('the other run kept this record');
    if (d.diff === 'kept-here') lines.push('the other run lost this record');
    if (typeof d.value === 'string') lines.push('click to follow this record in every view');
    return lines;
  }
}
