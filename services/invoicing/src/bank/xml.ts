/**
 * A small, bounded XML reader for bank files (camt.053). It reads elements, attributes, text,
 * CDATA, comments and processing instructions; it refuses any DOCTYPE (so no DTD and no entity but
 * the five predefined ones and character references can exist), input over `maxBytes`, nesting over
 * `maxDepth` and more than `maxNodes` elements. Names keep their prefix off (`local`), so readers are
 * namespace-agnostic: camt.053.001.02 to .08 differ in their namespace, not in the parts read here.
 */
export interface XmlElement {
  local: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export interface XmlLimits {
  maxBytes: number;
  maxDepth: number;
  maxNodes: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = { maxBytes: 20 * 1024 * 1024, maxDepth: 64, maxNodes: 2_000_000 };

export class XmlError extends Error {}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);|&/g, (whole, name: string | undefined) => {
    if (!name) throw new XmlError('a bare "&" in text');
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    const known = PREDEFINED[name];
    if (known === undefined) throw new XmlError(`the entity &${name}; is not allowed (no DTD is read)`);
    return known;
  });
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ATTRIBUTE = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*("([^"<]*)"|'([^'<]*)')/;

export function parseXml(input: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlElement {
  if (Buffer.byteLength(input, 'utf8') > limits.maxBytes) throw new XmlError(`the document is larger than ${limits.maxBytes} bytes`);
  let text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  let pos = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let nodes = 0;
  text = text.replace(/\r\n?/g, '\n');
  const n = text.length;
  while (pos < n) {
    const lt = text.indexOf('<', pos);
    const chunk = lt < 0 ? text.slice(pos) : text.slice(pos, lt);
    if (chunk.length) {
      const top = stack[stack.length - 1];
      if (top) top.text += decodeEntities(chunk);
      else if (chunk.trim()) throw new XmlError('text outside the root element');
    }
    if (lt < 0) break;
    pos = lt;
    if (text.startsWith('<!--', pos)) {
      const end = text.indexOf('-->', pos + 4);
      if (end < 0) throw new XmlError('an unclosed comment');
      pos = end + 3;
    } else if (text.startsWith('<![CDATA[', pos)) {
      const end = text.indexOf(']]>', pos + 9);
      if (end < 0) throw new XmlError('an unclosed CDATA section');
      const top = stack[stack.length - 1];
      if (!top) throw new XmlError('CDATA outside the root element');
      top.text += text.slice(pos + 9, end);
      pos = end + 3;
    } else if (text.startsWith('<!', pos)) {
      throw new XmlError('a DOCTYPE or declaration is not allowed (no DTD, no entities)');
    } else if (text.startsWith('<?', pos)) {
      const end = text.indexOf('?>', pos + 2);
      if (end < 0) throw new XmlError('an unclosed processing instruction');
      pos = end + 2;
    } else if (text.startsWith('</', pos)) {
      const end = text.indexOf('>', pos);
      if (end < 0) throw new XmlError('an unclosed end tag');
      const name = text.slice(pos + 2, end).trim();
      const top = stack.pop();
      if (!top || top.local !== localName(name)) throw new XmlError(`an unexpected end tag </${name}>`);
      pos = end + 1;
    } else {
      const nameMatch = NAME.exec(text.slice(pos + 1, pos + 1 + 256));
      if (!nameMatch) throw new XmlError('a malformed start tag');
      let cursor = pos + 1 + nameMatch[0].length;
      const attributes: Record<string, string> = {};
      for (;;) {
        const rest = text.slice(cursor, cursor + 4096);
        const attribute = ATTRIBUTE.exec(rest);
        if (!attribute) break;
        attributes[attribute[1]!] = decodeEntities(attribute[3] ?? attribute[4] ?? '');
        cursor += attribute[0].length;
      }
      while (cursor < n && /\s/.test(text[cursor]!)) cursor++;
      const selfClosing = text.startsWith('/>', cursor);
      if (!selfClosing && text[cursor] !== '>') throw new XmlError(`a malformed start tag <${nameMatch[0]}>`);
      pos = cursor + (selfClosing ? 2 : 1);
      if (++nodes > limits.maxNodes) throw new XmlError(`more than ${limits.maxNodes} elements`);
      const element: XmlElement = { local: localName(nameMatch[0]), attributes, children: [], text: '' };
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(element);
      else if (root) throw new XmlError('more than one root element');
      else root = element;
      if (!selfClosing) {
        stack.push(element);
        if (stack.length > limits.maxDepth) throw new XmlError(`nesting deeper than ${limits.maxDepth}`);
      }
    }
  }
  if (stack.length) throw new XmlError(`an unclosed element <${stack[stack.length - 1]!.local}>`);
  if (!root) throw new XmlError('no root element');
  return root;
}

/** The first child element by local name, following a path: `child(e, 'Acct', 'Id', 'IBAN')`. */
export function child(element: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let at = element;
  for (const name of path) {
    at = at?.children.find((c) => c.local === name);
    if (!at) return undefined;
  }
  return at;
}

export function childrenOf(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((c) => c.local === name) : [];
}

export function textOf(element: XmlElement | undefined, ...path: string[]): string | null {
  const found = child(element, ...path);
  const value = found?.text.trim();
  return value ? value : null;
}

export function escapeXml(value: string): string {
  return value.replace(/[<>&"']/g, (c) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' } as const)[c as '<']};`);
}
