import { el, replace } from '../lib/dom';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import { describeEvent, ROUTINE_KINDS } from '../model/labels';

export interface EventsHandlers {
  onSeek(i: number): void;
}

const BEFORE = 8;
const AFTER = 12;
const SCAN = 60_000;

/** The events around the cursor, in plain words, and the raw fields of the one under it. */
export class EventsView {
  private run: LoadedRun | null = null;
  private hideRoutine = true;
  private readonly list: HTMLOListElement;
  private readonly detail: HTMLPreElement;
  private readonly head: HTMLDivElement;
  private cursor = -1;

  constructor(
    root: HTMLElement,
    private readonly handlers: EventsHandlers,
  ) {
    const box = el('input', { type: 'checkbox', checked: true, id: 'hide-routine' });
    box.addEventListener('change', () => {
      this.hideRoutine = box.checked;
      this.render(this.cursor);
    });
    this.head = el('div', { class: 'events-head' });
    this.list = el('ol', { class: 'event-list', 'data-testid': 'event-list' });
    this.detail = el('pre', { class: 'event-detail', 'data-testid': 'event-detail' });
    root.append(
      this.head,
      el('label', { class: 'check' }, box, ' hide routine events (appends, sends, acks, messages, HW moves)'),
      this.list,
      el('h3', {}, 'The event at the cursor'),
      this.detail,
    );
  }

  setRun(run: LoadedRun | null): void {
    this.run = run;
    this.cursor = -1;
    replace(this.list);
    this.detail.textContent = '';
  }

  render(cursor: number): void {
    this.cursor = cursor;
    const run = this.run;
    if (!run) return;
    const m = run.model;
    const keep = (i: number) => !this.hideRoutine || !ROUTINE_KINDS.has(m.kind(i)) || i === cursor;
    const before: number[] = [];
    for (let i = cursor, n = 0; i >= 0 && before.length < BEFORE && n < SCAN; i--, n++) if (keep(i)) before.push(i);
    before.reverse();
    const after: number[] = [];
    for (let i = cursor + 1, n = 0; i < m.n && after.length < AFTER && n < SCAN; i++, n++) if (keep(i)) after.push(i);
    const items = [...before, ...after].map((i) => {
      const e = m.events[i]!;
      const li = el(
        'li',
        { class: `${i === cursor ? 'current' : i > cursor ? 'future' : ''}` },
        el('span', { class: 'et' }, rel(e.t, m.t0)),
        el('span', { class: 'en' }, m.lanes[m.lane[i]!]!.label),
        el('span', { class: 'ek' }, e.kind),
        el('span', { class: 'ed' }, m.names.text(describeEvent(e))),
      );
      li.addEventListener('click', () => this.handlers.onSeek(i));
      return li;
    });
    replace(this.list, ...items);
    replace(this.head, cursor >= 0 ? `event ${cursor + 1} of ${m.n}` : `before the first event (${m.n} events)`);
    const e = cursor >= 0 ? m.events[cursor] : undefined;
    this.detail.textContent = e ? JSON.stringify(e, (k, v: unknown) => (k === 'msg' || (Array.isArray(v) && v.length > 40) ? (Array.isArray(v) ? `[${v.length} items]` : v) : v), 2) : '';
  }
}
