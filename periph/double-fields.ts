// Numeric fields that V8 keeps as doubles from an object's first field on.
//
// V8 gives a field the representation of its first value: a small integer
// (a Smi) gives a Smi field. A clock is a small integer at first, but the
// first clock computed from a double (Infinity, a Math.min with one, a
// Float64Array element) or past 2^30 changes the field to a double, and that
// change retires the objects' shape: every function optimized for the old
// shape is thrown away and compiled again. A cold `picotpu demo` met some
// thirty such changes in its first tenth of a second. A field declared through
// doubleFields is a double from the start, and so never changes.

/**
 * Creates the named fields of `o` holding NaN (a double): call it in the first
 * field initializer of a class, before the fields' own initializers, which then
 * store their values into fields that are already doubles. Returns true.
 */
export function doubleFields(o: object, names: readonly string[]): true {
  const fields = o as Record<string, number>;
  for (let i = 0; i < names.length; i++) fields[names[i]] = Number.NaN;
  return true;
}
