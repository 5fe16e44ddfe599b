import { ByteReader, ByteWriter, WireFormatError } from './bytes';
import { cloneDefault, inRange, type Field, type FieldType, type MessageSchema, type ScalarType } from './schema';

/**
 * Reads and writes any version of a message from its schema, with Kafka's rules
 * [generator/src/main/java/org/apache/kafka/message/MessageDataGenerator.java; KIP-482]:
 * - a field exists only in its versions; absent fields read as their default and are not written;
 * - flexible versions use compact strings, bytes and arrays (unsigned varint length + 1, 0 = null) and end every
 *   struct with a tagged-field section (a count, then tag, size, value for each), sorted by tag;
 * - a tagged field is written only when it differs from its default; unknown tags are skipped on read;
 * - a nullable struct is preceded by an int8 (-1 null, 1 present).
 */

type Obj = Record<string, unknown>;

/** Writes `value` as `version` of `schema`. Fields left undefined take their defaults. */
export function encodeMessage(schema: MessageSchema, version: number, value: object, w: ByteWriter): void {
  writeStruct(schema.fields, version, inRange(schema.flexibleVersions, version), value as Obj, w, schema.name);
}

/** Reads `version` of `schema`; throws WireFormatError on bytes that do not parse. */
export function decodeMessage<T = Obj>(schema: MessageSchema, version: number, r: ByteReader): T {
  return readStruct(schema.fields, version, inRange(schema.flexibleVersions, version), r, schema.name) as T;
}

function isTagged(f: Field, version: number, flexible: boolean): boolean {
  return flexible && f.tag !== null && inRange(f.taggedVersions, version);
}

function writeStruct(fields: readonly Field[], version: number, flexible: boolean, obj: Obj, w: ByteWriter, path: string): void {
  let tagged: Field[] | null = null;
  for (const f of fields) {
    if (!inRange(f.versions, version) && !(isTagged(f, version, flexible))) continue;
    if (isTagged(f, version, flexible)) {
      const v = obj[f.name];
      if (v !== undefined && !isDefault(v, f.default)) (tagged ??= []).push(f);
      continue;
    }
    const fieldFlexible = f.flexibleVersions ? inRange(f.flexibleVersions, version) : flexible;
    const v = obj[f.name];
    writeValue(f, f.type, v === undefined ? f.default : v, version, fieldFlexible, w, `${path}.${f.name}`);
  }
  if (!flexible) return;
  if (tagged === null) {
    w.uvarint(0);
    return;
  }
  tagged.sort((a, b) => a.tag! - b.tag!);
  w.uvarint(tagged.length);
  for (const f of tagged) {
    const inner = new ByteWriter(64);
    writeValue(f, f.type, obj[f.name], version, true, inner, `${path}.${f.name}`);
    w.uvarint(f.tag!);
    w.uvarint(inner.length);
    w.raw(inner.peek(0, inner.length));
  }
}

function writeValue(f: Field, type: FieldType, v: unknown, version: number, flexible: boolean, w: ByteWriter, path: string): void {
  const nullable = inRange(f.nullable, version);
  if (v === null && !nullable) throw new RangeError(`${path} is null, but it is not nullable in version ${version}`);
  switch (type.kind) {
    case 'scalar':
      writeScalar(type.scalar, v, flexible, w, path);
      return;
    case 'struct':
      if (nullable) {
        if (v === null) {
          w.int8(-1);
          return;
        }
        w.int8(1);
      }
      writeStruct(type.fields, version, flexible, v as Obj, w, path);
      return;
    case 'array': {
      if (v === null) {
        if (flexible) w.uvarint(0);
        else w.int32(-1);
        return;
      }
      const items = v as unknown[];
      if (flexible) w.uvarint(items.length + 1);
      else w.int32(items.length);
      const it = type.items;
      for (let i = 0; i < items.length; i++) {
        if (it.kind === 'scalar') writeScalar(it.scalar, items[i], flexible, w, path);
        else writeStruct(it.fields, version, flexible, items[i] as Obj, w, path);
      }
      return;
    }
  }
}

function writeScalar(s: ScalarType, v: unknown, flexible: boolean, w: ByteWriter, path: string): void {
  switch (s) {
    case 'bool':
      w.bool(v as boolean);
      return;
    case 'int8':
      w.int8(v as number);
      return;
    case 'int16':
      w.int16(v as number);
      return;
    case 'uint16':
      w.uint16(v as number);
      return;
    case 'int32':
      w.int32(v as number);
      return;
    case 'uint32':
      w.uint32(v as number);
      return;
    case 'int64':
      w.int64(v as number);
      return;
    case 'float64':
      w.float64(v as number);
      return;
    case 'string':
      if (flexible) w.compactString(v as string | null);
      else w.string(v as string | null);
      return;
    case 'bytes':
    case 'records':
      if (flexible) w.compactBytes(v as Uint8Array | null);
      else w.bytes(v as Uint8Array | null);
      return;
    case 'uuid':
      w.uuid(v as string);
      return;
  }
  throw new RangeError(`${path}: unknown type ${String(s)}`);
}

function readStruct(fields: readonly Field[], version: number, flexible: boolean, r: ByteReader, path: string): Obj {
  const obj: Obj = {};
  for (const f of fields) {
    if (isTagged(f, version, flexible) || !inRange(f.versions, version)) {
      obj[f.name] = cloneDefault(f.default);
      continue;
    }
    const fieldFlexible = f.flexibleVersions ? inRange(f.flexibleVersions, version) : flexible;
    obj[f.name] = readValue(f, f.type, version, fieldFlexible, r, path);
  }
  if (!flexible) return obj;
  const count = r.uvarint();
  let lastTag = -1;
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    if (tag <= lastTag) throw new WireFormatError(`${path}: tagged field ${tag} follows tag ${lastTag} (tags must increase)`);
    lastTag = tag;
    if (size > r.remaining) throw new WireFormatError(`${path}: tagged field ${tag} claims ${size} bytes, only ${r.remaining} remain`);
    const f = fields.find((x) => x.tag === tag && isTagged(x, version, flexible));
    if (!f) {
      r.skip(size, `unknown tagged field ${tag}`);
      continue;
    }
    const sub = new ByteReader(r.buf, r.pos, r.pos + size);
    obj[f.name] = readValue(f, f.type, version, true, sub, path);
    if (sub.pos !== sub.end) throw new WireFormatError(`${path}.${f.name}: tagged field ${tag} has ${sub.end - sub.pos} bytes left over`);
    r.pos += size;
  }
  return obj;
}

function readValue(f: Field, type: FieldType, version: number, flexible: boolean, r: ByteReader, path: string): unknown {
  const nullable = inRange(f.nullable, version);
  const where = `${path}.${f.name}`;
  switch (type.kind) {
    case 'scalar': {
      const v = readScalar(type.scalar, flexible, r);
      if (v === null && !nullable) throw new WireFormatError(`${where} is null, but it is not nullable in version ${version}`);
      return v;
    }
    case 'struct': {
      if (nullable) {
        const marker = r.int8();
        if (marker < 0) return null;
      }
      return readStruct(type.fields, version, flexible, r, where);
    }
    case 'array': {
      const n = flexible ? r.compactArrayLength() : r.arrayLength();
      if (n < 0) {
        if (!nullable) throw new WireFormatError(`${where} is null, but it is not nullable in version ${version}`);
        return null;
      }
      const out: unknown[] = new Array(n);
      const it = type.items;
      for (let i = 0; i < n; i++) {
        if (it.kind === 'scalar') {
          const v = readScalar(it.scalar, flexible, r);
          if (v === null) throw new WireFormatError(`${where}[${i}] is null`);
          out[i] = v;
        } else out[i] = readStruct(it.fields, version, flexible, r, where);
      }
      return out;
    }
  }
}

function readScalar(s: ScalarType, flexible: boolean, r: ByteReader): unknown {
  switch (s) {
    case 'bool':
      return r.bool();
    case 'int8':
      return r.int8();
    case 'int16':
      return r.int16();
    case 'uint16':
      return r.uint16();
    case 'int32':
      return r.int32();
    case 'uint32':
      return r.uint32();
    case 'int64':
      return r.int64();
    case 'float64':
      return r.float64();
    case 'string':
      return flexible ? r.compactString() : r.string();
    case 'bytes':
    case 'records': {
      const b = flexible ? r.compactBytes() : r.bytes();
      // A copy: the frame's buffer is reused for the next one.
      return b === null ? null : b.slice();
    }
    case 'uuid':
      return r.uuid();
  }
}

/** Whether a value equals a field's default (a tagged field is then left out). */
export function isDefault(v: unknown, d: unknown): boolean {
  if (v === d) return true;
  if (v === null || d === null || v === undefined) return v === d || v === undefined;
  if (Array.isArray(v)) return Array.isArray(d) && v.length === 0 && d.length === 0;
  if (v instanceof Uint8Array) return d instanceof Uint8Array && v.length === 0 && d.length === 0;
  if (typeof v === 'object' && typeof d === 'object') {
    for (const [k, x] of Object.entries(d as Obj)) if (!isDefault((v as Obj)[k], x)) return false;
    return true;
  }
  return false;
}
