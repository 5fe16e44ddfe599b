import { CHECKS, METRICS, GROUP_FIGURES, MEMBER_FIGURES, groupFigureName, memberFigureName } from '../../../sim/check/names';
import { parseDuration } from '../../../sim/core/time';
import { el, replace, type Child } from '../lib/dom';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import { recordAftermath } from '../model/recordStory';

export interface ChecksHandlers {
  onSelectValue(value: string | null): void;
  /** Move the cursor to a scenario-relative time (us). */
  onSeekRel(relUs: number): void;
}

/** The guarantees a reader looks at first; a count above zero is a violation. */
const ANOMALIES = [
  'lost-write',
  'lost-write-jepsen',
  'duplicate',
  'inconsistent-offsets',
  'nonmonotonic-send',
  'poll-skip',
  'nonmonotonic-poll',
  'G1a',
  'read-then-truncated',
  'elected-outside-isr',
  'group-overlap',
  'commit-backwards',
] as const;

/** Facts worth knowing, not violations by themselves. */
const FACTS = ['acked', 'send-failed', 'send-unknown', 'acked-unflushed', 'unseen', 'elections', 'controller-elections', 'unavailability.longest-ms', 'latency.p50-ms', 'latency.p99-ms', 'records-read', 'rebalances', 'lag.max'] as const;

/** Group figures compared side by side in compare mode too (classic beside KIP-848, say), for every group. */
const COMPARED_GROUP_FIGURES = ['rebalances', 'rebalance.pause-ms', 'partitions.moved', 'members.paused', 're-reads'] as const;

/** Keys compared side by side in compare mode. */
const COMPARED = ['lost-write', 'acked', 'send-failed', 'errors.NOT_ENOUGH_REPLICAS', 'errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND', 'elected-outside-isr', 'acked-unflushed', 'unavailability.longest-ms', 'latency.p99-ms'];

const MAX_LISTED = 300;

function describe(name: string): string {
  if (name in CHECKS) return CHECKS[name as keyof typeof CHECKS];
  if (name in METRICS) return METRICS[name as keyof typeof METRICS];
  if (name.startsWith('errors.')) return `errors named ${name.slice(7)} seen by clients`;
  const g = groupFigureName(name);
  if (g) return `group ${g.group}: ${GROUP_FIGURES[g.figure]}`;
  const m = memberFigureName(name);
  if (m) return `${m.consumer}: ${MEMBER_FIGURES[m.figure]}`;
  return '';
}

/**
 * A scenario's expectations, read as what it claims will happen: each claim came true in this run or did not.
 * On the scenario as written a claim that did not come true is a failure (red); once the learner has changed a
 * setting it is the result of their experiment (neutral), not an error.
 */
function predictions(run: LoadedRun, side: 'A' | 'B' | null, change: string | null): Child[] {
  const changed = change !== null;
  const exps = run.payload.expectations;
  const differ = exps.filter((x) => !x.ok).length;
  const head = el('h3', {}, side ? `${side}: the scenario predicts` : 'The scenario predicts');
  const note = changed
    ? el(
        'p',
        { class: 'experiment', 'data-testid': `experiment${side ? `-${side}` : ''}` },
        `You changed ${change}. The predictions are for the scenario as written: `,
        differ === 0 ? 'your run still bears out every one of them.' : `${differ} of them did not come true in your run, and that difference is what your change did.`,
      )
    : null;
  const items = exps.map((x) =>
    el(
      'li',
      { class: x.ok ? 'ok' : changed ? 'differs' : 'bad', 'data-testid': 'prediction' },
      el('span', { class: 'mark' }, x.ok ? '✓' : changed ? '≠' : '✗'),
      ` ${x.description} `,
      el('span', { class: 'verdict-word' }, x.ok ? '— it happened' : changed ? '— not in your run' : '— it did not happen'),
      ' ',
      el('span', { class: 'dim' }, `(${x.check} = ${x.actual}; predicted ${x.op} ${x.expected})`),
    ),
  );
  return [head, note, el('ul', { class: 'expectations' }, ...items)];
}

/**
 * The checkers' verdict on the run: expectations, the guarantees (anomaly counts), the lost writes with
 * their stories (each time in a story moves the cursor there), and the service figures.
 */
export class ChecksView {
  private run: LoadedRun | null = null;
  private runB: LoadedRun | null = null;
  private readonly story: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private selected: string | null = null;
  private listItems = new Map<string, HTMLButtonElement>();

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: ChecksHandlers,
  ) {
    this.body = el('div', { class: 'checks-body' });
    this.story = el('div', { class: 'story', 'data-testid': 'story' });
    root.append(this.body);
  }

  /** `changes`: what the learner changed on each side (settings, an added fault), null where it runs as written. */
  setRuns(run: LoadedRun | null, runB: LoadedRun | null, changes: { readonly A: string | null; readonly B: string | null } = { A: null, B: null }): void {
    this.run = run;
    this.runB = runB;
    this.listItems.clear();
    replace(this.body);
    if (!run) return;
    const checks = run.payload.checks;
    const t0 = run.model.t0;
    const parts: Child[] = [];

    if (runB) parts.push(this.compareTable(run, runB));

    if (run.payload.expectations.length > 0) parts.push(...predictions(run, runB ? 'A' : null, changes.A));
    if (runB && runB.payload.expectations.length > 0) parts.push(...predictions(runB, 'B', changes.B));

    // Lost writes first: the question everyone asks.
    const lost = checks['lost-write'];
    const values = lost?.values ?? [];
    parts.push(el('h3', {}, 'Lost writes'));
    if (!lost || lost.count === 0) {
      parts.push(el('p', { class: 'good-news', 'data-testid': 'no-lost-writes' }, 'No acknowledged write was lost: every record a producer was told is safe is in the final log.'));
    } else {
      parts.push(el('p', { class: 'bad-news', 'data-testid': 'lost-count' }, `${lost.count} acknowledged ${lost.count === 1 ? 'write is' : 'writes are'} missing from the final log. Choose one to follow it.`));
      const list = el('div', { class: 'lost-list', 'data-testid': 'lost-list' });
      for (const v of values.slice(0, MAX_LISTED)) {
        const info = run.model.values.get(v);
        const b = el(
          'button',
          { class: 'lost-item', 'data-testid': 'lost-write', title: 'Follow this record in every view' },
          el('span', { class: 'lv' }, v),
          el('span', { class: 'dim' }, info ? ` offset ${info.offset} · acked ${info.ackT >= 0 ? rel(info.ackT, t0) : '?'}` : ''),
        );
        b.addEventListener('click', () => this.handlers.onSelectValue(this.selected === v ? null : v));
        this.listItems.set(v, b);
        list.appendChild(b);
      }
      if (values.length > MAX_LISTED) list.appendChild(el('div', { class: 'dim' }, `… and ${values.length - MAX_LISTED} more`));
      parts.push(list);
    }
    const effects = checks['output-not-once'];
    if (effects && effects.count > 0) parts.push(...this.effectsList(run, effects.values ?? [], effects.count));
    parts.push(this.story);

    parts.push(el('h3', {}, 'Guarantees'));
    parts.push(this.table(run, [...ANOMALIES], true));
    const errors = Object.keys(checks).filter((k) => k.startsWith('errors.')).sort();
    parts.push(el('h3', {}, 'What clients saw'));
    parts.push(this.table(run, [...FACTS, ...errors], false));
    const metrics = Object.keys(METRICS).filter((k) => k in checks);
    parts.push(el('details', {}, el('summary', {}, 'More figures'), this.table(run, metrics, false)));
    replace(this.body, ...parts);
    this.renderStory();
  }

  /** Inputs of a consume-transform-produce application whose effect is not exactly once, each with its story. */
  private effectsList(run: LoadedRun, values: readonly string[], count: number): Child[] {
    const dups = new Set(run.payload.checks['output-duplicates']?.values ?? []);
    const list = el('div', { class: 'lost-list', 'data-testid': 'effect-list' });
    for (const v of values.slice(0, MAX_LISTED)) {
      const b = el(
        'button',
        { class: 'lost-item', 'data-testid': 'effect', title: 'Follow this input in every view' },
        el('span', { class: 'lv' }, v),
        el('span', { class: 'dim' }, dups.has(v) ? ' output twice or more' : ' output lost'),
      );
      b.addEventListener('click', () => this.handlers.onSelectValue(this.selected === v ? null : v));
      this.listItems.set(v, b);
      list.appendChild(b);
    }
    return [
      el('h3', {}, 'Effects not exactly once'),
      el('p', { class: 'bad-news', 'data-testid': 'effect-count' }, `${count} ${count === 1 ? 'input has' : 'inputs have'} an output that is not exactly once in the committed output. Choose one to follow it.`),
      list,
    ];
  }

  private compareTable(a: LoadedRun, b: LoadedRun): HTMLElement {
    const shown = (k: string) => (a.payload.checks[k]?.count ?? 0) !== 0 || (b.payload.checks[k]?.count ?? 0) !== 0;
    const groupKeys = [...new Set([...Object.keys(a.payload.checks), ...Object.keys(b.payload.checks)])]
      .filter((k) => (COMPARED_GROUP_FIGURES as readonly string[]).includes(groupFigureName(k)?.figure ?? ''))
      .sort();
    const rows = [...COMPARED.filter((k) => shown(k) || k === 'lost-write' || k === 'acked'), ...groupKeys.filter(shown)];
    return el(
      'div',
      { class: 'compare-table' },
      el('h3', {}, 'A beside B'),
      el(
        'table',
        { 'data-testid': 'compare-table' },
        el('tr', {}, el('th', {}, 'check'), el('th', {}, `A`), el('th', {}, `B`), el('th', {}, 'B against A')),
        ...rows.map((k) => {
          const va = a.payload.checks[k]?.count ?? 0;
          const vb = b.payload.checks[k]?.count ?? 0;
          // More acknowledged is better; of everything else here (losses, errors, waits, moves) less is.
          const sign = Math.sign(vb - va) * (k === 'acked' || k === 'records-read' ? 1 : -1);
          const verdict = va === vb ? 'same' : sign > 0 ? 'better' : 'worse';
          const cls = (mine: number, theirs: number) => (mine === theirs ? '' : (k === 'acked' ? mine > theirs : mine < theirs) ? 'better' : 'worse');
          return el(
            'tr',
            { title: describe(k), 'data-check': k, 'data-verdict': verdict },
            el('td', {}, k),
            el('td', { class: cls(va, vb) }, String(va)),
            el('td', { class: cls(vb, va) }, String(vb)),
            el('td', { class: `verdict-cell ${verdict}` }, verdict),
          );
        }),
      ),
    );
  }

  private table(run: LoadedRun, names: readonly string[], anomalies: boolean): HTMLElement {
    const checks = run.payload.checks;
    const rows = names
      .filter((n) => n in checks)
      .map((n) => {
        const r = checks[n]!;
        const bad = anomalies && r.count > 0;
        const row = el('div', { class: `check-row${bad ? ' bad' : ''}${anomalies && r.count === 0 ? ' ok' : ''}`, title: describe(n), 'data-check': n }, el('span', { class: 'cn' }, n), el('span', { class: 'cc' }, String(r.count)));
        if (r.examples.length === 0) return row;
        const ex = el('div', { class: 'examples' }, ...r.examples.map((x) => el('div', {}, run.model.names.text(x))));
        ex.hidden = true;
        row.classList.add('expandable');
        row.addEventListener('click', () => (ex.hidden = !ex.hidden));
        return el('div', {}, row, ex);
      });
    return el('div', { class: 'check-table' }, ...rows);
  }

  setSelected(value: string | null): void {
    this.selected = value;
    for (const [v, b] of this.listItems) b.classList.toggle('selected', v === value);
    const item = value ? this.listItems.get(value) : undefined;
    item?.scrollIntoView({ block: 'nearest' });
    this.renderStory();
  }

  private renderStory(): void {
    const run = this.run;
    const v = this.selected;
    if (!run || !v) {
      replace(this.story);
      this.story.hidden = true;
      return;
    }
    this.story.hidden = false;
    const lost = run.payload.checks['lost-write'];
    const idx = lost?.values?.indexOf(v) ?? -1;
    const effects = run.payload.checks['output-not-once'];
    const effectIdx = effects?.values?.indexOf(v) ?? -1;
    const effectStory = effectIdx >= 0 ? effects?.stories?.[effectIdx] : undefined;
    const story = idx >= 0 ? lost?.stories?.[idx] : effectStory;
    const info = run.model.values.get(v);
    const lines: string[] = story ? [...story] : [];
    if (!story && info) {
      const t0 = run.model.t0;
      if (info.invokeT >= 0) lines.push(`${info.producer} sent ${v} at ${rel(info.invokeT, t0)}.`);
      if (info.appendT >= 0) lines.push(`Broker ${info.broker}, leader in epoch ${info.epoch}, appended it at offset ${info.offset} at ${rel(info.appendT, t0)}.`);
      if (info.ackT >= 0) lines.push(`Broker ${info.broker} acknowledged it at ${rel(info.ackT, t0)} (acks=${info.acks}).`);
      else if (info.failT >= 0) lines.push(`The send failed at ${rel(info.failT, t0)}: ${info.error}.`);
      lines.push(...recordAftermath(run.model, info));
      lines.push(run.model.isLost(v) ? 'It is not in the final log.' : 'It is in the final log.');
    }
    replace(
      this.story,
      el(
        'div',
        { class: 'story-title' },
        effectStory && idx < 0
          ? (run.payload.checks['output-duplicates']?.values ?? []).includes(v)
            ? 'The story of a duplicated effect'
            : 'The story of a lost effect'
          : run.model.isLost(v)
            ? 'The story of a lost write'
            : 'The story of a record',
        el('span', { class: 'story-value' }, v),
      ),
      el('ol', {}, ...lines.map((line) => el('li', {}, ...this.linkTimes(run.model.names.text(line))))),
      el('div', { class: 'dim' }, 'Click a time to move the cursor there.'),
    );
  }

  /** A story line with its times as buttons that move the cursor. */
  private linkTimes(line: string): Child[] {
    const out: Child[] = [];
    const re = /(-?\d+(?:\.\d+)?(?:ms|us|s))\b/g;
    let last = 0;
    for (let m = re.exec(line); m; m = re.exec(line)) {
      const text = m[1]!;
      const neg = text.startsWith('-');
      const us = parseDuration(neg ? text.slice(1) : text);
      if (us === null) continue;
      out.push(line.slice(last, m.index));
      const b = el('button', { class: 'time-link' }, text);
      // Printed times are rounded to the shown digit: go to the end of that interval, so the event the
      // line speaks of has happened.
      const unit = text.endsWith('ms') || text.endsWith('us') ? 0 : 499;
      b.addEventListener('click', () => this.handlers.onSeekRel((neg ? -us : us) + unit));
      out.push(b);
      last = m.index + text.length;
    }
    out.push(line.slice(last));
    return out;
  }
}
