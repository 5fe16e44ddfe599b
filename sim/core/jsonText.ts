/**
 * Reading a JSON document a person wrote, with an error of one line that says where it goes wrong (line and
 * column) and what was found there — never V8's message, which quotes the text, newlines and all.
 * A leading byte order mark is ignored.
 */
export type JsonParse = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

export function parseJsonText(raw: string): JsonParse {
  // A byte order mark some editors write is not part of the document (RFC 8259 §8.1 lets a parser ignore
  // it), as `kafkasim check` ignores it in a trace.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.trim() === '') return { ok: false, error: 'is empty; expected a JSON object' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const at = firstError(text);
    return { ok: false, error: `is not valid JSON: ${at.what} at ${position(text, at.offset)}` };
  }
}

/** "line 3, column 7" of a character offset. */
function position(text: string, offset: number): string {
  let line = 1;
  let col = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      col = 1;
    } else col++;
  }
  return `line ${line}, column ${col}`;
}

function shown(c: string | undefined): string {
  if (c === undefined) return 'the end of the text';
  return c.charCodeAt(0) < 0x20 ? `character U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}` : JSON.stringify(c);
}

/**
 * Finds the first place where `text` stops being JSON (RFC 8259): a small recursive scanner that only
 * locates the error (JSON.parse has already said there is one).
 */
function firstError(text: string): { offset: number; what: string } {
  let i = 0;
  /** Stops at the current character: `expected` is what JSON allows there; `plain` a mistake said as it is. */
  const fail = (expected: string, plain = false): never => {
    throw { offset: i, what: plain ? expected : `expected ${expected}, found ${shown(text[i])}` };
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(JSON.stringify(word));
      i++;
    }
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      const c = text[i];
      if (c === undefined) fail('a string that is never closed', true);
      if (c === '"') {
        i++;
        return;
      }
      if (c!.charCodeAt(0) < 0x20) fail(`a control character (U+${c!.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}) inside a string`, true);
      if (c === '\\') {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
              i += k;
              fail('a \\u escape with four hex digits');
            }
          }
          i += 5;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX');
      }
      i++;
    }
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '-' || m[0] === '') fail('a value');
    i += m![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail('nesting deeper than 10000 levels', true);
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail('a field name in double quotes');
        string();
        ws();
        if (text[i] !== ':') fail('":" after a field name');
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') return void i++;
        fail('"," or "}"');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') return void i++;
        fail('"," or "]"');
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    fail('a value');
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail('the end of the document');
    return { offset: 0, what: 'unreadable JSON' };
  } catch (e) {
    if (e instanceof RangeError) return { offset: i, what: 'nesting too deep to read' };
    return e as { offset: number; what: string };
  }
}
