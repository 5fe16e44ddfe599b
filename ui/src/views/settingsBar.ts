import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { el, replace } from '../lib/dom';
import { scenarioValue, toggles, valueOf, withValue } from '../app/settings';

export interface SettingsHandlers {
  onChange(which: 'A' | 'B', sets: string[]): void;
  onCompare(on: boolean): void;
  /** A loaded trace of a library scenario: run it here (to change its settings). */
  onRunHere(): void;
}

/**
 * The configs that matter, as selects that rerun the same seed and faults with an override; a second
 * row (B) in compare mode.
 */
export class SettingsBar {
  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: SettingsHandlers,
  ) {}

  render(spec: ScenarioSpec | null, setsA: readonly string[], compare: boolean, setsB: readonly string[], fileName: string | null, canRunHere: boolean): void {
    if (!spec || fileName !== null) {
      const parts: (HTMLElement | string)[] = [el('span', { class: 'row-name' }, '')];
      if (fileName !== null) {
        parts.push(el('span', { class: 'dim' }, `Showing the trace file ${fileName}. `));
        if (canRunHere) {
          const b = el('button', { class: 'small', 'data-testid': 'run-here' }, 'run this scenario here to change its settings');
          b.addEventListener('click', () => this.handlers.onRunHere());
          parts.push(b);
        }
      } else parts.push(el('span', { class: 'dim' }, 'Choose a scenario (g) or open a trace file (o).'));
      replace(this.root, el('div', { class: 'settings-row' }, ...parts));
      return;
    }
    const brokers = spec.cluster?.brokers ?? 3;
    const rows: HTMLElement[] = [this.row('A', spec, setsA, brokers, compare)];
    if (compare) rows.push(this.row('B', spec, setsB, brokers, false));
    replace(this.root, ...rows);
  }

  private row(which: 'A' | 'B', spec: ScenarioSpec, sets: readonly string[], brokers: number, compare: boolean): HTMLElement {
    const items: HTMLElement[] = [el('span', { class: 'row-name' }, compare || which === 'B' ? which : '')];
    for (const t of toggles(brokers)) {
      const current = valueOf(sets, t.key);
      const sel = el(
        'select',
        { 'data-testid': `set-${which}-${t.id}`, 'aria-label': `${which} ${t.label}`, class: current ? 'changed' : '' },
        el('option', { value: '' }, scenarioValue(spec, t.key)),
        ...t.choices.map((c) => el('option', { value: c.value, selected: c.value === current }, c.label)),
      );
      sel.addEventListener('change', () => this.handlers.onChange(which, withValue(sets, t.key, sel.value)));
      sel.title = current ? `changed from the scenario's ${scenarioValue(spec, t.key)}` : 'as the scenario says';
      items.push(el('label', { title: t.help }, t.label, sel));
    }
    if (which === 'A') {
      const box = el('input', { type: 'checkbox', checked: compare, 'data-testid': 'compare' });
      box.addEventListener('change', () => this.handlers.onCompare(box.checked));
      items.push(el('label', { class: 'compare-toggle', title: 'Run a second setting on the same seed and faults, side by side (c)' }, box, 'compare'));
    }
    return el('div', { class: 'settings-row' }, ...items);
  }
}
