import { replace, el, type Child } from '../lib/dom';

/** One floating tooltip for the whole page; content is built from text nodes only. */
export class Tooltip {
  private readonly node: HTMLDivElement;
  constructor(parent: HTMLElement) {
    this.node = el('div', { class: 'tooltip', role: 'tooltip', 'data-testid': 'tooltip' });
    this.node.hidden = true;
    parent.appendChild(this.node);
  }

  show(x: number, y: number, title: string, lines: readonly Child[]): void {
    replace(this.node, el('div', { class: 'tt-title' }, title), ...lines.map((l) => el('div', { class: 'tt-line' }, l)));
    this.node.hidden = false;
    const w = this.node.offsetWidth;
    const h = this.node.offsetHeight;
    const left = x + 14 + w > window.innerWidth ? x - w - 10 : x + 14;
    const top = y + 14 + h > window.innerHeight ? y - h - 10 : y + 14;
    this.node.style.left = `${Math.max(4, left)}px`;
    this.node.style.top = `${Math.max(4, top)}px`;
  }

  hide(): void {
    this.node.hidden = true;
  }
}
