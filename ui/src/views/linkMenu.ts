import { el } from '../lib/dom';
import { linkActions, type LiveFaultKind } from '../app/liveFault';

/**
 * The "links" part of a node's what-if menu: one row per peer it talks to, each with the network faults that
 * link can take now (cut it, slow it), so a learner can partition two nodes without writing a fault entry.
 */
export function linkMenu(hostName: string, peers: readonly { readonly id: string; readonly name: string }[], onPick: (peer: string, fault: LiveFaultKind, durationMs: number) => void): HTMLElement | null {
  if (peers.length === 0) return null;
  const rows = peers.map((p) =>
    el(
      'div',
      { class: 'link-row', 'data-peer': p.id },
      el('span', { class: 'link-peer' }, `↔ ${p.name}`),
      ...linkActions().map((a) => {
        const b = el('button', { class: 'small link-action', 'data-testid': `link-${a.fault}-${p.id}`, title: `${a.label} the link ${hostName} ↔ ${p.name} now, for ${a.durationMs / 1000} s` }, a.label);
        b.addEventListener('click', () => onPick(p.id, a.fault, a.durationMs));
        return b;
      }),
    ),
  );
  return el('div', { class: 'menu-links', 'data-testid': 'link-menu' }, el('div', { class: 'menu-subhead' }, 'its links, for 10 s:'), el('div', { class: 'link-rows' }, ...rows));
}
