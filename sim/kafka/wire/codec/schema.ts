/**
 * Message schemas as Kafka declares them in clients/src/main/resources/common/message/*.json: each field has a type,
 * the versions it exists in, the versions it may be null in, and optionally a tag (a tagged field, KIP-482, written
 * only in flexible versions and only when it differs from its default). One schema describes every version of a
 * message; `codec/message.ts` reads and writes any version from it, as Kafka's generated *Data classes do.
 *
 * Field names are the JSON names in camelCase (`ErrorCode` -> `errorCode`), so a Kafka engineer finds each one.
 */

export type ScalarType = 'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64' | 'string' | 'bytes' | 'records' | 'uuid';

/** Inclusive version range; `max` is Infinity for "N+". `none` is the empty range. */
export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

export const NO_VERSIONS: VersionRange = { min: 1, max: 0 };

/** "3+", "0-12", "7", "none", as the JSON files write them. */
export function versions(spec: string): VersionRange {
  if (spec === 'none') return NO_VERSIONS;
  const plus = /^(\d+)\+$/.exec(spec);
  if (plus) return { min: Number(plus[1]), max: Number.POSITIVE_INFINITY };
  const range = /^(\d+)-(\d+)$/.exec(spec);
  if (range) return { min: Number(range[1]), max: Number(range[2]) };
  if (/^\d+$/.test(spec)) return { min: Number(spec), max: Number(spec) };
  throw new RangeError(`not a version range: ${JSON.stringify(spec)} (allowed: "N+", "N-M", "N", "none")`);
}

export function inRange(r: VersionRange, v: number): boolean {
  return v >= r.min && v <= r.max;
}

export type FieldType =
  | { readonly kind: 'scalar'; readonly scalar: ScalarType }
  | { readonly kind: 'struct'; readonly fields: readonly Field[] }
  | { readonly kind: 'array'; readonly items: { readonly kind: 'scalar'; readonly scalar: ScalarType } | { readonly kind: 'struct'; readonly fields: readonly Field[] } };

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  readonly versions: VersionRange;
  readonly nullable: VersionRange;
  /** A tagged field's tag, or null. */
  readonly tag: number | null;
  readonly taggedVersions: VersionRange;
  /** The value when the field is absent from a version, and the one a tagged field is left out at. */
  readonly default: unknown;
  /** Overrides the message's flexible versions for this field (the request header's ClientId: "none"). */
  readonly flexibleVersions: VersionRange | null;
}

export interface MessageSchema {
  readonly name: string;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange;
  readonly fields: readonly Field[];
}

export interface FieldOptions {
  /** nullableVersions */
  readonly nullable?: string;
  readonly tag?: number;
  /** taggedVersions; defaults to the field's versions when a tag is given. */
  readonly tagged?: string;
  /** The JSON "default" ("null" is written as null). */
  readonly default?: unknown;
  readonly flexible?: string;
}

function field(name: string, type: FieldType, vs: string, o: FieldOptions = {}): Field {
  const nullable = o.nullable === undefined ? NO_VERSIONS : versions(o.nullable);
  const tag = o.tag ?? null;
  return {
    name,
    type,
    versions: versions(vs),
    nullable,
    tag,
    taggedVersions: tag === null ? NO_VERSIONS : versions(o.tagged ?? vs),
    default: o.default !== undefined ? o.default : defaultOf(type, nullable !== NO_VERSIONS && o.default === null),
    flexibleVersions: o.flexible === undefined ? null : versions(o.flexible),
  };
}

/** Kafka's implicit defaults: 0, false, "", empty bytes, the zero Uuid, an empty array, a struct of defaults. */
function defaultOf(type: FieldType, nullDefault: boolean): unknown {
  if (nullDefault) return null;
  if (type.kind === 'array') return [];
  if (type.kind === 'struct') return defaultStruct(type.fields);
  switch (type.scalar) {
    case 'bool':
      return false;
    case 'string':
      return '';
    case 'bytes':
      return new Uint8Array(0);
    case 'records':
      return null;
    case 'uuid':
      return 'AAAAAAAAAAAAAAAAAAAAAA';
    default:
      return 0;
  }
}

/** A struct with every field at its default. */
export function defaultStruct(fields: readonly Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f.name] = cloneDefault(f.default);
  return out;
}

/** A fresh copy of a default value (arrays and structs must not be shared between decoded messages). */
export function cloneDefault(v: unknown): unknown {
  if (Array.isArray(v)) return [];
  if (v instanceof Uint8Array) return new Uint8Array(0);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = cloneDefault(x);
    return out;
  }
  return v;
}

const scalar = (s: ScalarType): FieldType => ({ kind: 'scalar', scalar: s });

/** A field whose name and value type are known to the compiler, so a message's shape is inferred from its schema. */
export interface TypedField<N extends string, T> extends Field {
  readonly name: N;
  /** Never set: carries the value type. */
  readonly __value?: T;
}

/** The value of a field: its type, or null too when it has nullable versions. */
type Nullable<T, O> = O extends { readonly nullable: string } ? T | null : T;

/** The plain object a schema's fields describe. */
export type Infer<Fs extends readonly Field[]> = { -readonly [K in Fs[number] as K['name']]: K extends TypedField<string, infer T> ? T : unknown };

/** The decoded value of a message schema. */
export type MessageOf<S> = S extends TypedMessage<infer T> ? T : never;

export interface TypedMessage<T> extends MessageSchema {
  /** Never set: carries the message type. */
  readonly __message?: T;
}

const SCALAR_TYPES = {
  bool: false as boolean,
  int8: 0,
  int16: 0,
  uint16: 0,
  int32: 0,
  uint32: 0,
  int64: 0,
  float64: 0,
  string: '' as string,
  bytes: new Uint8Array(0) as Uint8Array,
  records: null as Uint8Array | null,
  uuid: '' as string,
};
type ScalarValue<S extends ScalarType> = (typeof SCALAR_TYPES)[S];

function scalarField<S extends ScalarType>(s: S) {
  return <N extends string, const O extends FieldOptions = {}>(name: N, vs: string, o?: O): TypedField<N, Nullable<ScalarValue<S>, O>> =>
    field(name, scalar(s), vs, o) as TypedField<N, Nullable<ScalarValue<S>, O>>;
}

// ---- the builders the API files use, one per JSON type ----

export const bool = scalarField('bool');
export const int8 = scalarField('int8');
export const int16 = scalarField('int16');
export const uint16 = scalarField('uint16');
export const int32 = scalarField('int32');
export const uint32 = scalarField('uint32');
export const int64 = scalarField('int64');
export const float64 = scalarField('float64');
export const string = scalarField('string');
export const bytes = scalarField('bytes');
/** A records field: the raw bytes of zero or more record batches (decoded by records/recordBatch.ts). */
export const records = scalarField('records');
export const uuid = scalarField('uuid');

/** `"type": "SomeStruct"` with its own fields. */
export function struct<N extends string, const Fs extends readonly Field[], const O extends FieldOptions = {}>(
  name: N,
  vs: string,
  fields: Fs,
  o?: O,
): TypedField<N, Nullable<Infer<Fs>, O>> {
  return field(name, { kind: 'struct', fields }, vs, o) as TypedField<N, Nullable<Infer<Fs>, O>>;
}

/** `"type": "[]SomeStruct"` with its fields. */
export function array<N extends string, const Fs extends readonly Field[], const O extends FieldOptions = {}>(
  name: N,
  vs: string,
  items: Fs,
  o?: O,
): TypedField<N, Nullable<Infer<Fs>[], O>> {
  return field(name, { kind: 'array', items: { kind: 'struct', fields: items } }, vs, o) as TypedField<N, Nullable<Infer<Fs>[], O>>;
}

/** `"type": "[]int32"` and the like: an array of a scalar type. */
export function scalarArray<N extends string, S extends ScalarType, const O extends FieldOptions = {}>(
  name: N,
  vs: string,
  items: S,
  o?: O,
): TypedField<N, Nullable<ScalarValue<S>[], O>> {
  return field(name, { kind: 'array', items: { kind: 'scalar', scalar: items } }, vs, o) as TypedField<N, Nullable<ScalarValue<S>[], O>>;
}

export function message<const Fs extends readonly Field[]>(name: string, validVersions: string, flexibleVersions: string, fields: Fs): TypedMessage<Infer<Fs>> {
  return { name, validVersions: versions(validVersions), flexibleVersions: versions(flexibleVersions), fields };
}
