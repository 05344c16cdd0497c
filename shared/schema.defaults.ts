// Schema defaults applied by a function built once from the schema. TypeBox's Value.Default walks
// the schema on every call and, for a union, clones and checks the value against each variant: it
// was ~40 % of the web's CPU per create. This applies the same defaults the same way (TypeBox
// 0.34's rules: a missing value gets a copy of the default; an object value is laid over a copy of
// an object default, so `weather: {climate: …}` gets `source: "synthetic"`; objects are then filled
// property by property), but picks a tagged union's variant by its tag (`source`) instead of
// trying each, and leaves an array where an object belongs as it is (TypeBox fills it like an
// object). Only for a value that is refused anyway can the two differ.
import { Kind, type TSchema } from '@sinclair/typebox';

type Apply = (value: unknown) => unknown;

const identity: Apply = (v) => v;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The literal that tells a union's object variants apart (e.g. `source`), if there is one. */
function discriminator(variants: TSchema[]): string | null {
  const first = variants[0];
  if (first?.[Kind] !== 'Object') return null;
  for (const key of Object.keys(first.properties ?? {})) {
    const literals = variants.map((v) => v.properties?.[key]?.const);
    if (literals.every((l) => typeof l === 'string') && new Set(literals).size === variants.length) return key;
  }
  return null;
}

function build(schema: TSchema): Apply {
  let inner: Apply = identity;
  if (schema[Kind] === 'Object') {
    const props = Object.entries((schema.properties ?? {}) as Record<string, TSchema>)
      .map(([key, s]) => [key, build(s)] as const)
      .filter(([, apply]) => apply !== identity);
    if (props.length > 0) {
      inner = (v) => {
        if (!isObject(v)) return v;
        for (const [key, apply] of props) {
          const r = apply(v[key]);
          if (r !== undefined) v[key] = r;
        }
        return v;
      };
    }
  } else if (schema[Kind] === 'Union') {
    const variants = schema.anyOf as TSchema[];
    const key = discriminator(variants);
    if (key) {
      const byTag = new Map(variants.map((v) => [v.properties[key].const as string, build(v)]));
      inner = (v) => (isObject(v) ? (byTag.get(v[key] as string) ?? identity)(v) : v);
    } else if (variants.some((v) => build(v) !== identity)) {
      throw new Error('schema.defaults: a union with defaults inside needs a string literal discriminator');
    }
  } else if (schema[Kind] === 'Array' && schema.items && build(schema.items) !== identity) {
    const item = build(schema.items);
    inner = (v) => {
      if (Array.isArray(v)) for (let i = 0; i < v.length; i++) v[i] = item(v[i]) ?? v[i];
      return v;
    };
  }
  if (!('default' in schema)) return inner;
  const dflt = schema.default;
  return (v) => {
    if (v === undefined) return inner(copyJson(dflt));
    if (isObject(v) && isObject(dflt)) return inner(Object.assign(copyJson(dflt) as Record<string, unknown>, v));
    return inner(v);
  };
}

/**
 * A deep copy of a JSON value (what JSON.parse makes and schema defaults hold). structuredClone
 * does the same for any value, at several times the cost for the small values of a request: it
 * was 3 % of the web's time under create load.
 */
export function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    const value = copyJson((v as Record<string, unknown>)[key]);
    // A "__proto__" key of parsed JSON is an own property; plain assignment would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}

/** A function that fills `schema`'s defaults into a value, in place (returns the value). */
export function compileDefaults(schema: TSchema): Apply {
  return build(schema);
}
