/**
 * Streaming 64-bit FNV-1a over the UTF-8 bytes of the text fed to it, in plain integer arithmetic
 * (four 16-bit limbs), so Node and every browser compute the same value.
 */
export class Fnv1a64 {
  // Offset basis 0xcbf29ce484222325, low limb first.
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  /** Feeds the UTF-8 encoding of `text`. */
  update(text: string): this {
    const n = text.length;
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(i);
      if (c < 0x80) {
        this.byte(c);
      } else if (c < 0x800) {
        this.byte(0xc0 | (c >> 6));
        this.byte(0x80 | (c & 0x3f));
      } else {
        if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
          const d = text.charCodeAt(i + 1);
          if (d >= 0xdc00 && d < 0xe000) {
            i++;
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            this.byte(0xf0 | (c >> 18));
            this.byte(0x80 | ((c >> 12) & 0x3f));
            this.byte(0x80 | ((c >> 6) & 0x3f));
            this.byte(0x80 | (c & 0x3f));
            continue;
          }
        }
        // A lone surrogate encodes as U+FFFD, as TextEncoder does.
        if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
        this.byte(0xe0 | (c >> 12));
        this.byte(0x80 | ((c >> 6) & 0x3f));
        this.byte(0x80 | (c & 0x3f));
      }
    }
    return this;
  }

  private byte(b: number): void {
    // h ^= b; h *= 0x100000001b3 (= h * 0x1b3 + h << 40), modulo 2^64.
    const h0 = this.h0 ^ b;
    const t0 = h0 * 0x1b3;
    const t1 = this.h1 * 0x1b3 + (t0 >>> 16);
    const t2 = this.h2 * 0x1b3 + (t1 >>> 16) + (h0 << 8);
    const t3 = this.h3 * 0x1b3 + (t2 >>> 16) + (this.h1 << 8);
    this.h0 = t0 & 0xffff;
    this.h1 = t1 & 0xffff;
    this.h2 = t2 & 0xffff;
    this.h3 = t3 & 0xffff;
  }

  /** The hash so far as 16 lowercase hex digits. Feeding more afterwards continues the stream. */
  hex(): string {
    const p = (x: number) => x.toString(16).padStart(4, '0');
    return p(this.h3) + p(this.h2) + p(this.h1) + p(this.h0);
  }
}

/** FNV-1a 64 of one string, as hex. */
export function fnv1a64(text: string): string {
  return new Fnv1a64().update(text).hex();
}
