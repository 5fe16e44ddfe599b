import type { Random } from '../../core/random';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * A Kafka Uuid as it prints (16 bytes, URL-safe base64 without padding: 22 characters), drawn from a seeded
 * stream. Like Uuid.randomUuid it never starts with '-', so it cannot be mistaken for a command-line flag.
 * [clients/.../common/Uuid.java `randomUuid`, `toString`]
 */
export function newUuid(random: Random): string {
  for (;;) {
    const bytes: number[] = [];
    for (let i = 0; i < 16; i++) bytes.push(random.int(0, 256));
    let out = '';
    for (let i = 0; i < 16; i += 3) {
      const b0 = bytes[i]!;
      const b1 = bytes[i + 1];
      const b2 = bytes[i + 2];
      out += BASE64URL[b0 >> 2];
      out += BASE64URL[((b0 & 3) << 4) | ((b1 ?? 0) >> 4)];
      if (b1 !== undefined) out += BASE64URL[((b1 & 15) << 2) | ((b2 ?? 0) >> 6)];
      if (b2 !== undefined) out += BASE64URL[b2 & 63];
    }
    if (!out.startsWith('-') && out !== 'AAAAAAAAAAAAAAAAAAAAAA' && out !== 'AAAAAAAAAAAAAAAAAAAAAQ') return out;
  }
}
