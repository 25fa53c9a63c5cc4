// Makes the JS value of a result that rail-wasm packed (src/pack.rs): the value JSON.parse would
// make of serde_json's text for it, built without a text to parse. The module's Rust calls it
// with its memory and where the packed parts lie; everything is read before it returns, and no
// view of the memory is kept (the next call may grow it).

const NULL = 0;
const FALSE = 1;
const TRUE = 2;
const NUMBER = 3;
const STRING = 4;
const ARRAY = 5;
const OBJECT = 6;
const MAP = 7;

let utf8 = null;

/** The string table's text: Latin-1 in Node when it is ASCII (a plain copy), else UTF-8. */
function decodeText(buffer, at, length, ascii) {
  const NodeBuffer = globalThis.Buffer;
  if (ascii && typeof NodeBuffer === "function") {
    return NodeBuffer.from(buffer, at, length).toString("latin1");
  }
  // ignoreBOM: a string that starts with U+FEFF keeps it.
  utf8 ??= new TextDecoder("utf-8", { ignoreBOM: true });
  return utf8.decode(new Uint8Array(buffer, at, length));
}

/** Sets a key as JSON.parse does: an own data property, "__proto__" included. */
function define(object, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/**
 * Whether to make a function per shape: one returning an object literal of the shape's keys,
 * which V8 builds several times faster than an object filled key by key. Only in Node (the VS
 * Code extension host), and only if it allows making functions from text. Browsers copy a
 * template instead: in a page whose content security policy forbids `eval` (a webview), even
 * trying would log a violation.
 */
let canCompile;
function compiles() {
  if (canCompile === undefined) {
    canCompile = false;
    if (typeof process === "object" && typeof process.versions?.node === "string") {
      try {
        canCompile = new Function("return 1")() === 1;
      } catch {
        // --disallow-code-generation-from-strings
      }
    }
  }
  return canCompile;
}

/** Makers of objects of one shape, by its keys (joined), kept across calls. */
const makers = new Map();
function maker(keys) {
  const id = JSON.stringify(keys);
  let make = makers.get(id);
  if (make === undefined) {
    // `__proto__` as a plain key would set the prototype; as a computed one it is a property.
    const fields = keys.map((k) => `${k === "__proto__" ? `[${JSON.stringify(k)}]` : JSON.stringify(k)}: r.value()`);
    make = new Function("r", `return { ${fields.join(", ")} };`);
    makers.set(id, make);
  }
  return make;
}

/** An object with a shape's keys, in order, all null: copied and filled where nothing compiles. */
function template(keys) {
  const object = {};
  for (const key of keys) define(object, key, null);
  return object;
}

/** The state of one unpacking: the parts, and where reading is in `ints` and `nums`. */
class Reader {
  constructor(ints, nums, strings, shapes) {
    this.ints = ints;
    this.nums = nums;
    this.strings = strings;
    this.shapes = shapes;
    this.makers = compiles() ? shapes.map(maker) : null;
    this.templates = this.makers === null ? shapes.map(template) : null;
    this.at = 0;
    this.num = 0;
  }

  value() {
    const ints = this.ints;
    switch (ints[this.at++]) {
      case STRING:
        return this.strings[ints[this.at++]];
      case NUMBER:
        return this.nums[this.num++];
      case OBJECT: {
        const shape = ints[this.at++];
        if (this.makers !== null) return this.makers[shape](this);
        const keys = this.shapes[shape];
        // A copy of the shape's template has its keys in order already: only values are set.
        const object = { ...this.templates[shape] };
        for (let i = 0; i < keys.length; i++) object[keys[i]] = this.value();
        return object;
      }
      case ARRAY: {
        // Pushed, not preallocated: V8 then keeps the array packed, as JSON.parse makes it.
        const array = [];
        for (let n = ints[this.at++]; n > 0; n--) array.push(this.value());
        return array;
      }
      case NULL:
        return null;
      case FALSE:
        return false;
      case TRUE:
        return true;
      case MAP: {
        const object = {};
        for (let n = ints[this.at++]; n > 0; n--) {
          const key = this.strings[ints[this.at++]];
          define(object, key, this.value());
        }
        return object;
      }
      default:
        throw new Error(`rail: result: unknown tag ${ints[this.at - 1]} (a bug in rail-wasm)`);
    }
  }
}

/**
 * @param {WebAssembly.Memory} memory the module's memory
 * @param {number} header where eleven u32s say where the parts are: ints, nums, text, ends,
 *   shapes (each as address and length), then whether the text is ASCII
 */
export function unpack(memory, header) {
  const buffer = memory.buffer;
  const [intsAt, intsLength, numsAt, numsLength, textAt, textLength, endsAt, endsLength, shapesAt, shapesLength, ascii] =
    new Uint32Array(buffer, header, 11);
  const text = decodeText(buffer, textAt, textLength, ascii !== 0);
  const ends = new Uint32Array(buffer, endsAt, endsLength);
  const strings = new Array(endsLength);
  for (let i = 0, start = 0; i < endsLength; i++) {
    strings[i] = text.slice(start, ends[i]);
    start = ends[i];
  }
  const words = new Uint32Array(buffer, shapesAt, shapesLength);
  const shapes = [];
  for (let i = 0; i < words.length; ) {
    const keys = [];
    for (let n = words[i++]; n > 0; n--) keys.push(strings[words[i++]]);
    shapes.push(keys);
  }
  const ints = new Int32Array(buffer, intsAt, intsLength);
  const nums = new Float64Array(buffer, numsAt, numsLength);
  return new Reader(ints, nums, strings, shapes).value();
}
