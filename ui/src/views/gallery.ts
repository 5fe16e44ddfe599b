import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { el, replace } from '../lib/dom';
import { isGuided } from '../app/library';

export interface GalleryHandlers {
  onChoose(id: string, seed: string): void;
  onOpenFile(): void;
  onClose(): void;
}

/** The scenario library as cards: title, summary, tags; a seed box; or open a trace file instead. */
export class Gallery {
  private readonly seed: HTMLInputElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly library: readonly ScenarioSpec[],
    private readonly handlers: GalleryHandlers,
  ) {
    this.seed = el('input', { size: 6, 'data-testid': 'gallery-seed', spellcheck: 'false', placeholder: 'scenario’s' });
    const close = el('button', { title: 'Close (Esc)' }, 'Close');
    close.addEventListener('click', () => this.handlers.onClose());
    const open = el('button', {}, 'Open a trace file…');
    open.addEventListener('click', () => this.handlers.onOpenFile());
    const cards = library.map((s) => {
      const faults = s.faults?.length ?? 0;
      const card = el(
        'button',
        { class: 'scenario-card', 'data-scenario': s.id, 'data-testid': `scenario-${s.id}` },
        el('span', { class: 'sc-title' }, s.title ?? s.id),
        el('span', { class: 'sc-id' }, s.id),
        s.summary ? el('span', { class: 'sc-summary' }, s.summary) : null,
        el(
          'span',
          { class: 'tags' },
          isGuided(s) ? el('span', { class: 'tag guided' }, 'guided') : null,
          el('span', { class: 'tag' }, `${faults} fault${faults === 1 ? '' : 's'}`),
          ...(s.tags ?? []).map((t) => el('span', { class: 'tag' }, t)),
        ),
      );
      card.addEventListener('click', () => this.handlers.onChoose(s.id, this.seed.value.trim()));
      return card;
    });
    const sheet = el(
      'div',
      { class: 'sheet', role: 'dialog', 'aria-label': 'Scenarios' },
      el('div', { class: 'sheet-head' }, el('h2', {}, 'Scenarios'), el('span', { class: 'dim' }, `${library.length} in the library · runs in your browser, same trace as the CLI`), el('span', { class: 'spacer' }), el('label', {}, 'seed ', this.seed), open, close),
      library.length ? el('div', { class: 'gallery-grid' }, ...cards) : el('p', {}, 'The library is empty.'),
    );
    replace(root, sheet);
    root.addEventListener('click', (e) => {
      if (e.target === root) this.handlers.onClose();
    });
  }

  open(seed: string): void {
    this.seed.value = seed;
    this.root.hidden = false;
  }

  close(): void {
    this.root.hidden = true;
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }
}
