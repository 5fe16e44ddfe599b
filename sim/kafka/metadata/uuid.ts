import type { Random } from '../../core/random';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64URL_INDEX = new Map<string, number>([...BASE64URL].map((c, i) => [c, i]));

/** Uuid.ZERO_UUID as it prints. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Kafka's Uuid.toString: the 16 bytes in URL-safe base64 without padding (22 characters). */
export function uuidToString(bytes: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < 16; i += 3) {
    const b0 = bytes[i]!;
    const b1 = i + 1 < 16 ? bytes[i + 1] : undefined;
    const b2 = i + 2 < 16 ? bytes[i + 2] : undefined;
    out += BASE64URL[b0 >> 2];
    out += BASE64URL[((b0 & 3) << 4) | ((b1 ?? 0) >> 4)];
    if (b1 !== undefined) out += BASE64URL[((b1 & 15) << 2) | ((b2 ?? 0) >> 6)];
    if (b2 !== undefined) out += BASE64URL[b2 & 63];
  }
  return out;
}

/** The 16 bytes of a printed Uuid [Uuid.fromString]; anything else is a RangeError. */
export function uuidFromString(id: string): Uint8Array {
  if (id.length !== 22) throw new RangeError(`a Uuid prints as 22 characters, got ${JSON.stringify(id)}`);
  const out = new Uint8Array(16);
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const c of id) {
    const v = BASE64URL_INDEX.get(c);
    if (v === undefined) throw new RangeError(`${JSON.stringify(id)} is not a Uuid (URL-safe base64)`);
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (o < 16) out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/**
 * A Kafka Uuid as it prints, drawn from a seeded stream. Like Uuid.randomUuid it never starts with '-', so it
 * cannot be mistaken for a command-line flag, and it is never one of the two reserved ids.
 * [clients/.../common/Uuid.java `randomUuid`, `toString`]
 */
export function newUuid(random: Random): string {
  for (;;) {
    const bytes: number[] = [];
    for (let i = 0; i < 16; i++) bytes.push(random.int(0, 256));
    const out = uuidToString(bytes);
    if (!out.startsWith('-') && out !== ZERO_UUID && out !== 'AAAAAAAAAAAAAAAAAAAAAQ') return out;
  }
}
