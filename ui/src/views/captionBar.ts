import { el } from '../lib/dom';
import { rel } from '../lib/format';
import type { Caption, TraceModel } from '../model/traceModel';

export interface CaptionBarHandlers {
  /** Previous / next caption. */
  onStep(dir: 1 | -1): void;
  onContinue(): void;
  onGuided(on: boolean): void;
}

/**
 * The story of a guided scenario, one caption at a time. Built once and updated in place (playback renders every
 * frame, and a button rebuilt under the pointer would lose its click). Every caption is text, never markup.
 */
export class CaptionBar {
  private readonly time: HTMLSpanElement;
  private readonly text: HTMLSpanElement;
  private readonly count: HTMLSpanElement;
  private readonly prev: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private readonly cont: HTMLButtonElement;
  private readonly guided: HTMLInputElement;

  constructor(
    private readonly root: HTMLElement,
    handlers: CaptionBarHandlers,
  ) {
    const btn = (label: string, title: string, testid: string, f: () => void) => {
      const b = el('button', { class: 'small', title, 'data-testid': testid }, label);
      b.addEventListener('click', () => {
        f();
        b.blur();
      });
      return b;
    };
    this.time = el('span', { class: 'cap-time' });
    this.text = el('span', { class: 'cap-text', 'data-testid': 'caption-text' });
    this.count = el('span', { class: 'cap-count dim' });
    this.prev = btn('◀', 'Previous caption (p)', 'caption-prev', () => handlers.onStep(-1));
    this.next = btn('▶', 'Next caption (n)', 'caption-next', () => handlers.onStep(1));
    this.cont = btn('Continue ▶', 'Continue the story (Space)', 'caption-continue', () => handlers.onContinue());
    this.cont.classList.add('primary');
    this.guided = el('input', { type: 'checkbox', checked: true, 'data-testid': 'caption-guided' });
    this.guided.addEventListener('change', () => {
      handlers.onGuided(this.guided.checked);
      this.guided.blur();
    });
    root.append(
      this.prev,
      el('div', { class: 'cap-body' }, this.time, this.text),
      this.cont,
      this.next,
      this.count,
      el('label', { class: 'cap-guided', title: 'Playback stops at each caption until you continue' }, this.guided, 'stop at each caption'),
    );
  }

  set guidedOn(on: boolean) {
    this.guided.checked = on;
  }

  /**
   * Shows the caption at the cursor (null before the first), whether playback is waiting at it, and how far through
   * the story the cursor is.
   */
  render(model: TraceModel | null, caption: Caption | null, cursor: number, waiting: boolean, now: number): void {
    const caps = model?.captions ?? [];
    this.root.hidden = caps.length === 0;
    if (!model || caps.length === 0) return;
    const k = caption ? caps.findIndex((c) => c.i === caption.i) : -1;
    if (!caption) {
      this.time.textContent = 'Guided scenario';
      this.text.textContent = 'Press Space to play: the story stops at each of its moments. n / p step from caption to caption.';
    } else {
      this.time.textContent = rel(caption.t, model.t0);
      this.text.textContent = caption.text;
    }
    this.count.textContent = `${k + 1}/${caps.length}`;
    this.prev.disabled = !caps.some((c) => c.i < cursor);
    this.next.disabled = !caps.some((c) => c.i > cursor);
    this.cont.hidden = !waiting;
    this.root.dataset['waiting'] = String(waiting);
    this.root.dataset['caption'] = String(k);
    this.root.classList.toggle('old', !waiting && caption !== null && now - caption.t > 15_000_000);
  }
}
