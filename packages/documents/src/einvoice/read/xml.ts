/**
 * A small XML parser for documents received from outside (e-invoices). It reads exactly what an
 * e-invoice needs (elements, attributes, text, CDATA, namespaces) and refuses the rest:
 *
 * - a DOCTYPE of any kind is refused outright, so there is no DTD, no external entity (XXE) and no
 *   entity definition to expand (billion laughs): the only entities are the five predefined ones and
 *   character references;
 * - the input is bounded in bytes (`maxBytes`), in element depth (`maxDepth`), in elements
 *   (`maxElements`) and in time (`maxMillis`, checked as it goes); one pass over the text, no
 *   backtracking regular expressions, so the time is linear in the size.
 *
 * A refusal is an `XmlRefused` with a stable `reason`; the caller answers it as a 400.
 */

export interface XmlElement {
  /** The qualified name as written (`cbc:ID`). */
  name: string;
  /** The local name (`ID`). */
  local: string;
  /** The namespace URI its prefix (or the default namespace) resolves to; '' for none. */
  ns: string;
  /** Attributes by their name as written (`currencyID`, `schemeID`). */
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Its own text (CDATA included), children's text excluded, untrimmed. */
  text: string;
}

export type XmlRefusalReason =
  'too_large' | 'doctype' | 'entity' | 'too_deep' | 'too_many_elements' | 'too_slow' | 'malformed' | 'encoding' | 'unsupported';

export class XmlRefused extends Error {
  constructor(
    readonly reason: XmlRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'XmlRefused';
  }
}

export interface XmlLimits {
  maxBytes: number;
  maxDepth: number;
  maxElements: number;
  maxMillis: number;
}

/** An e-invoice of a thousand lines is about 2 MB and 40 levels deep at most; these leave room. */
export const DEFAULT_XML_LIMITS: XmlLimits = { maxBytes: 10 * 1024 * 1024, maxDepth: 64, maxElements: 500_000, maxMillis: 2_000 };

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The text of the bytes: UTF-8 (with or without BOM) or, when the declaration says so, ISO-8859-1; UTF-16 is refused. */
export function decodeXml(bytes: Uint8Array): string {
  if (bytes.length >= 2 && ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe))) {
    throw new XmlRefused('encoding', 'UTF-16 documents are not accepted; send UTF-8');
  }
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  const declared = /^(?:\uFEFF|\xEF\xBB\xBF)?<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1]?.toLowerCase();
  if (declared && !['utf-8', 'utf8', 'us-ascii', 'ascii', 'iso-8859-1', 'latin1', 'iso-8859-15'].includes(declared)) {
    throw new XmlRefused('encoding', `The encoding ${declared} is not accepted; send UTF-8`);
  }
  const latin = (declared !== undefined && declared.startsWith('iso-8859')) || declared === 'latin1';
  try {
    const text = new TextDecoder(latin ? 'latin1' : 'utf-8', { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    throw new XmlRefused('encoding', 'The document is not valid UTF-8');
  }
}

function decodeEntities(raw: string, where: () => string): string {
  if (!raw.includes('&')) return raw;
  let out = '';
  let i = 0;
  for (;;) {
    const amp = raw.indexOf('&', i);
    if (amp < 0) return out + raw.slice(i);
    out += raw.slice(i, amp);
    const semi = raw.indexOf(';', amp);
    if (semi < 0 || semi - amp > 12) throw new XmlRefused('malformed', `An unterminated reference ${where()}`);
    const ref = raw.slice(amp + 1, semi);
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      const valid = ref[1] === 'x' ? /^#x[0-9a-fA-F]+$/.test(ref) : /^#[0-9]+$/.test(ref);
      if (!valid || !Number.isFinite(code) || code > 0x10ffff || code === 0) {
        throw new XmlRefused('malformed', `A bad character reference &${ref}; ${where()}`);
      }
      out += String.fromCodePoint(code);
    } else {
      const known = PREDEFINED[ref];
      if (known === undefined) throw new XmlRefused('entity', `The entity &${ref}; is not one of the five predefined ones ${where()}`);
      out += known;
    }
    i = semi + 1;
  }
}

const NAME = /[A-Za-z_:\u00C0-\uFFFF][\w.:\-\u00B7\u00C0-\uFFFF]*/y;
const SPACE = /\s*/y;

/** Parses the document (bytes or text) within the limits; the root element. */
export function parseXml(input: string | Uint8Array, limits: Partial<XmlLimits> = {}): XmlElement {
  const lim = { ...DEFAULT_XML_LIMITS, ...limits };
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (size > lim.maxBytes) throw new XmlRefused('too_large', `The document is ${size} bytes, more than the ${lim.maxBytes} accepted`);
  const src = typeof input === 'string' ? (input.charCodeAt(0) === 0xfeff ? input.slice(1) : input) : decodeXml(input);
  const deadline = Date.now() + lim.maxMillis;
  const n = src.length;
  let pos = 0;
  let elements = 0;
  let root: XmlElement | undefined;
  const stack: { el: XmlElement; nsMap: Map<string, string> }[] = [];
  const line = (at: number) => {
    let l = 1;
    for (let k = 0; k < at && k < n; k++) if (src.charCodeAt(k) === 10) l++;
    return l;
  };
  const where = () => `at line ${line(pos)}`;
  const malformed = (what: string): never => {
    throw new XmlRefused('malformed', `${what} ${where()}`);
  };
  const skipPast = (end: string, what: string) => {
    const at = src.indexOf(end, pos);
    if (at < 0) malformed(`An unterminated ${what}`);
    pos = at + end.length;
  };

  while (pos < n) {
    const lt = src.indexOf('<', pos);
    const textEnd = lt < 0 ? n : lt;
    if (textEnd > pos) {
      const raw = src.slice(pos, textEnd);
      const top = stack[stack.length - 1];
      if (top) top.el.text += decodeEntities(raw, where);
      else if (raw.trim() !== '') malformed('Text outside the root element');
      if (raw.includes(']]>')) malformed('"]]>" in text');
    }
    if (lt < 0) break;
    pos = lt;
    if ((++elements & 1023) === 0 && Date.now() > deadline) {
      throw new XmlRefused('too_slow', `Reading the document took more than ${lim.maxMillis} ms`);
    }
    if (src.startsWith('<?', pos)) {
      skipPast('?>', 'processing instruction');
    } else if (src.startsWith('<!--', pos)) {
      pos += 4;
      skipPast('-->', 'comment');
    } else if (src.startsWith('<![CDATA[', pos)) {
      const start = pos + 9;
      pos = start;
      skipPast(']]>', 'CDATA section');
      const top = stack[stack.length - 1];
      if (!top) malformed('CDATA outside the root element');
      top!.el.text += src.slice(start, pos - 3);
    } else if (src.startsWith('<!', pos)) {
      if (/^<!DOCTYPE/i.test(src.slice(pos, pos + 9))) throw new XmlRefused('doctype', `A DOCTYPE is not accepted ${where()}`);
      malformed('A markup declaration outside a DTD');
    } else if (src.startsWith('</', pos)) {
      pos += 2;
      NAME.lastIndex = pos;
      const m = NAME.exec(src);
      if (!m) malformed('A bad closing tag');
      pos = NAME.lastIndex;
      SPACE.lastIndex = pos;
      SPACE.exec(src);
      pos = SPACE.lastIndex;
      if (src[pos] !== '>') malformed('A bad closing tag');
      pos++;
      const top = stack.pop();
      if (!top || top.el.name !== m![0]) malformed(`</${m![0]}> closes ${top ? `<${top.el.name}>` : 'nothing'}`);
    } else {
      pos++;
      NAME.lastIndex = pos;
      const m = NAME.exec(src);
      if (!m) malformed('A bad tag');
      const name = m![0];
      pos = NAME.lastIndex;
      const attrs: Record<string, string> = {};
      let selfClosing = false;
      for (;;) {
        SPACE.lastIndex = pos;
        SPACE.exec(src);
        const spaced = SPACE.lastIndex > pos;
        pos = SPACE.lastIndex;
        if (src[pos] === '>') {
          pos++;
          break;
        }
        if (src.startsWith('/>', pos)) {
          pos += 2;
          selfClosing = true;
          break;
        }
        if (!spaced) malformed(`A bad attribute in <${name}>`);
        NAME.lastIndex = pos;
        const a = NAME.exec(src);
        if (!a) malformed(`A bad attribute in <${name}>`);
        pos = NAME.lastIndex;
        SPACE.lastIndex = pos;
        SPACE.exec(src);
        pos = SPACE.lastIndex;
        if (src[pos] !== '=') malformed(`An attribute without a value in <${name}>`);
        pos++;
        SPACE.lastIndex = pos;
        SPACE.exec(src);
        pos = SPACE.lastIndex;
        const quote = src[pos];
        if (quote !== '"' && quote !== "'") malformed(`An unquoted attribute in <${name}>`);
        const close = src.indexOf(quote!, pos + 1);
        if (close < 0) malformed(`An unterminated attribute in <${name}>`);
        const raw = src.slice(pos + 1, close);
        if (raw.includes('<')) malformed(`"<" in an attribute of <${name}>`);
        if (Object.hasOwn(attrs, a![0])) malformed(`A repeated attribute ${a![0]} in <${name}>`);
        attrs[a![0]] = decodeEntities(raw, where);
        pos = close + 1;
      }
      if (stack.length === 0 && root) malformed('A second root element');
      if (stack.length + 1 > lim.maxDepth)
        throw new XmlRefused('too_deep', `The document nests deeper than ${lim.maxDepth} elements ${where()}`);
      if (elements > lim.maxElements) throw new XmlRefused('too_many_elements', `The document has more than ${lim.maxElements} elements`);
      const parentNs = stack[stack.length - 1]?.nsMap;
      let nsMap = parentNs ?? new Map<string, string>();
      for (const [k, v] of Object.entries(attrs)) {
        if (k === 'xmlns' || k.startsWith('xmlns:')) {
          if (nsMap === parentNs) nsMap = new Map(parentNs);
          nsMap.set(k === 'xmlns' ? '' : k.slice(6), v);
        }
      }
      const colon = name.indexOf(':');
      const prefix = colon < 0 ? '' : name.slice(0, colon);
      const ns = nsMap.get(prefix);
      if (ns === undefined && prefix !== '') malformed(`The prefix ${prefix} of <${name}> is not declared`);
      const el: XmlElement = { name, local: colon < 0 ? name : name.slice(colon + 1), ns: ns ?? '', attrs, children: [], text: '' };
      const parent = stack[stack.length - 1];
      if (parent) parent.el.children.push(el);
      else root = el;
      if (!selfClosing) stack.push({ el, nsMap });
    }
  }
  if (stack.length > 0) malformed(`<${stack[stack.length - 1]!.el.name}> is not closed`);
  if (!root) malformed('No root element');
  return root!;
}

/** The children of `el` with this local name (in any namespace: UBL's cac/cbc and CII's ram/udt never share a local name in one place). */
export const childrenNamed = (el: XmlElement | undefined, local: string): XmlElement[] =>
  el ? el.children.filter((c) => c.local === local) : [];

/** The first descendant along the path of local names (`child(el, 'AccountingSupplierParty', 'Party')`). */
export function child(el: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let at = el;
  for (const local of path) {
    at = at?.children.find((c) => c.local === local);
    if (!at) return undefined;
  }
  return at;
}

/** The trimmed text along the path, undefined when absent or empty. */
export function textAt(el: XmlElement | undefined, ...path: string[]): string | undefined {
  const found = child(el, ...path);
  const t = found?.text.trim();
  return t === undefined || t === '' ? undefined : t;
}
