class SyntaxAt extends Error {
  constructor(readonly offset: number) {
    super(`JSON syntax error at offset ${offset}`);
  }
}

/**
 * The offset of the first syntax error in `text` as JSON, or -1 if it parses. JSON.parse does
 * not always say where it failed ("Unexpected token '}'"), and a person needs the line.
 */
export function jsonErrorOffset(text: string): number {
  let at = 0;
  const fail = (): never => {
    throw new SyntaxAt(at);
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text.charAt(at))) at++;
  };
  const word = (expected: string) => {
    for (const char of expected) {
      if (text.charAt(at) !== char) fail();
      at++;
    }
  };
  const string = () => {
    at++;
    while (at < text.length) {
      const code = text.charCodeAt(at);
      if (code === 0x22) return void at++;
      if (code < 0x20) fail();
      if (code !== 0x5c) {
        at++;
        continue;
      }
      at++;
      const escape = text.charAt(at);
      if (escape === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail();
        at += 5;
      } else if ('"\\/bfnrt'.includes(escape) && escape !== '') at++;
      else fail();
    }
    fail();
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(at));
    if (!match) fail();
    at += match![0].length;
  };
  const value = (): void => {
    skipSpace();
    const char = text.charAt(at);
    if (char === '{')
      members('}', () => {
        skipSpace();
        if (text.charAt(at) !== '"') fail();
        string();
        skipSpace();
        if (text.charAt(at) !== ':') fail();
        at++;
        value();
      });
    else if (char === '[') members(']', value);
    else if (char === '"') string();
    else if (char === 't') word('true');
    else if (char === 'f') word('false');
    else if (char === 'n') word('null');
    else if (char === '-' || (char >= '0' && char <= '9')) number();
    else fail();
    skipSpace();
  };
  const members = (close: string, member: () => void) => {
    at++;
    skipSpace();
    if (text.charAt(at) === close) return void at++;
    for (;;) {
      member();
      skipSpace();
      if (text.charAt(at) === close) return void at++;
      if (text.charAt(at) !== ',') fail();
      at++;
    }
  };
  try {
    value();
    if (at < text.length) fail();
    return -1;
  } catch (error) {
    if (error instanceof SyntaxAt) return error.offset;
    throw error;
  }
}
