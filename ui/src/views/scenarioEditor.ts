import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { el, replace } from '../lib/dom';

export interface EditorHandlers {
  /** Validate and run the text as a scenario file of that name; resolves to an error line, or null when it ran. */
  onRun(text: string, name: string): Promise<string | null>;
  onClose(): void;
}

/**
 * A scenario as its JSON file, to read, edit, run and save. The run goes through the same validation as
 * `kafkasim run file.json`, and an error is shown as the CLI words it (the field, the value, what is allowed).
 */
export class ScenarioEditor {
  private readonly text: HTMLTextAreaElement;
  private readonly error: HTMLDivElement;
  private readonly name: HTMLSpanElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: EditorHandlers,
  ) {
    this.text = el('textarea', { class: 'editor-text', spellcheck: 'false', 'data-testid': 'editor-text', 'aria-label': 'scenario JSON' });
    this.error = el('div', { class: 'editor-error', 'data-testid': 'editor-error', hidden: true });
    this.name = el('span', { class: 'dim' });
    const run = el('button', { class: 'primary', 'data-testid': 'editor-run' }, 'Run it');
    run.addEventListener('click', () => void this.run());
    const save = el('button', { 'data-testid': 'editor-save' }, 'Save .json');
    save.addEventListener('click', () => this.save());
    const close = el('button', {}, 'Close');
    close.addEventListener('click', () => this.handlers.onClose());
    replace(
      root,
      el(
        'div',
        { class: 'sheet editor', role: 'dialog', 'aria-label': 'Scenario editor', 'data-testid': 'editor' },
        el('div', { class: 'sheet-head' }, el('h2', {}, 'Scenario file'), this.name, el('span', { class: 'spacer' }), run, save, close),
        el('p', { class: 'dim' }, 'The scenario as JSON (the format of scenarios/*.json and kafkasim run file.json): change it and run it here.'),
        this.text,
        this.error,
      ),
    );
    root.addEventListener('click', (e) => {
      if (e.target === root) this.handlers.onClose();
    });
  }

  open(spec: ScenarioSpec | null, fileName: string): void {
    this.name.textContent = fileName;
    this.name.dataset['file'] = fileName;
    this.text.value = spec ? JSON.stringify(spec, null, 2) : '';
    this.error.hidden = true;
    this.root.hidden = false;
    this.text.focus();
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }

  private async run(): Promise<void> {
    this.error.hidden = true;
    const message = await this.handlers.onRun(this.text.value, this.name.dataset['file'] ?? 'scenario.json');
    if (message !== null) {
      this.error.textContent = message;
      this.error.hidden = false;
    }
  }

  private save(): void {
    const blob = new Blob([this.text.value.endsWith('\n') ? this.text.value : `${this.text.value}\n`], { type: 'application/json' });
    const link = el('a', { href: URL.createObjectURL(blob), download: this.name.dataset['file'] ?? 'scenario.json' });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }
}
