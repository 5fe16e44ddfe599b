import { el, replace } from '../lib/dom';

export const SHORTCUTS: readonly [string, string][] = [
  ['Space', 'play / pause'],
  ['→ / ←', 'next / previous event'],
  ['Shift + → / ←', 'next / previous notable event (faults, elections, ISR changes, truncations, lost acknowledgements, captions)'],
  ['n / p', 'guided scenario: next / previous caption (playback stops at each one; Space continues)'],
  ['Home / End', 'the first / last event'],
  ['0', 'scenario time 0 (the cluster has booted)'],
  ['] / [', 'faster / slower'],
  ['z / Z', 'timeline: zoom in / out around the cursor'],
  ['w', 'timeline: the whole run'],
  ['l', 'choose the next lost write'],
  ['f', 'partition view: follow the end of the log'],
  ['1 / 2 / 6 / 7', 'replicas / groups / operator (metrics, alerts, describe tables) / share groups'],
  ['3 / 4 / 5', 'checks / events / learn'],
  ['c', 'compare two settings side by side'],
  ['g', 'scenarios'],
  ['o', 'open a trace or a scenario file'],
  ['e', 'this scenario as its JSON file: edit, run, save'],
  ['Esc', 'close a dialog, or clear the chosen record'],
  ['?', 'this help'],
];

/** The keyboard shortcuts and how to read the screen. */
export function buildHelp(root: HTMLElement, onClose: () => void): void {
  const close = el('button', {}, 'Close');
  close.addEventListener('click', onClose);
  replace(
    root,
    el(
      'div',
      { class: 'sheet', role: 'dialog', 'aria-label': 'Help', 'data-testid': 'help' },
      el('div', { class: 'sheet-head' }, el('h2', {}, 'Keyboard and reading guide'), el('span', { class: 'spacer' }), close),
      el('div', { class: 'help-grid' }, ...SHORTCUTS.flatMap(([k, what]) => [el('div', {}, ...k.split(' ').map((p) => (p === '/' || p === '+' ? ` ${p} ` : el('kbd', {}, p)))), el('div', {}, what)])),
      el('h3', {}, 'Reading the screen'),
      el(
        'ul',
        {},
        el('li', {}, 'Every view shows the same moment: the red cursor on the timeline. Drag the slider, click the timeline, or step.'),
        el('li', {}, 'Partition view: one row per replica, one cell per offset. Colour = the leader epoch a record was written in; pale = only in the page cache (a power cut loses it); white ring = acknowledged to the producer; red outline = acknowledged and later lost; red strip under a row = records a truncation removed. The black line is the high watermark.'),
        el('li', {}, 'Timeline: one lane per node. Shaded bands are faults, hatched bands are downtime; diamonds are elections, circles ISR changes, triangles truncations, crosses acknowledgements of writes that were later lost. Wheel to zoom, drag to pan, brush the strip below to pick a range. With trace=full (the "trace" setting), requests and responses are arrows.'),
        el('li', {}, 'Checks: choose a lost write to follow it everywhere; the times in its story move the cursor.'),
        el('li', {}, 'The settings row reruns the same seed and faults with other configs; "compare" shows two settings side by side.'),
      ),
    ),
  );
  root.addEventListener('click', (e) => {
    if (e.target === root) onClose();
  });
}
