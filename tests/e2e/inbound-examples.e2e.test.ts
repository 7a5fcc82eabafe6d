import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestSystem, type TestSystem } from '../support/system';

/**
 * Every official example (tests/einvoice-examples, the repository's copies of the CEN and Peppol examples) imported through the
 * gateway: each is held for review with its reasons stated or makes a bill, never a 500, and the
 * totals it answers are the document's own; a copy without its number (BT-1) or with its payable
 * amount (BT-115) changed is rejected naming the rule it breaks. And the XML attacks: an external
 * entity, a billion laughs and 50 MB are refused with a 400, quickly, and store nothing.
 */
const DIR = join(__dirname, '../einvoice-examples');
const PATH = '/invoicing/inbound';
const FILES = ['ubl', 'cii', 'peppol'].flatMap((d) => readdirSync(join(DIR, d)).map((f) => `${d}/${f}`));

/** The document with its number (BT-1) removed. */
function withoutNumber(xml: string): string {
  return /<rsm:CrossIndustryInvoice/.test(xml)
    ? xml.replace(/(<rsm:ExchangedDocument>\s*)<ram:ID>[^<]*<\/ram:ID>/, '$1')
    : xml.replace(/(<cbc:(?:CustomizationID|ProfileID)>[^<]*<\/cbc:(?:CustomizationID|ProfileID)>\s*)+<cbc:ID>[^<]*<\/cbc:ID>/, (m) =>
        m.replace(/<cbc:ID>[^<]*<\/cbc:ID>$/, ''),
      );
}

/** The document with its amount due (BT-115) one more. */
function payableChanged(xml: string): string {
  return xml.replace(
    /(<(?:cbc:PayableAmount|ram:DuePayableAmount)[^>]*>)\s*(-?[\d.]+)\s*(<)/,
    (_m, open: string, amount: string, close: string) => `${open}${(Number(amount) + 1).toFixed(2)}${close}`,
  );
}

describe('importing every official example, and corrupted copies', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // A received file travels as base64 in the JSON body: the gateway reads an import's body up to the
    // contract's 20 MB of file (Operation.maxBodyBytes) with its default BODY_LIMIT_BYTES.
    sys = await startTestSystem({ env: { EINVOICE_RULES_WARM: 'on', RPC_TIMEOUT_MS: '60000' } });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  const importFile = (bytes: Buffer | string) =>
    sys.post(PATH, { org_id: '1', userid: 'u1', action: 'import', content_base64: Buffer.from(bytes).toString('base64') });

  /** The import each file's bytes made: two examples with the same bytes are one import. */
  const bySha = new Map<string, number>();

  it.each(FILES)(
    '%s: held for review with its reasons, or a bill; its totals as stated; corrupted copies rejected by rule',
    async (file) => {
      const original = readFileSync(join(DIR, file));
      const res = await importFile(original);
      expect(res.statusCode).toBe(200);
      const inbound = res.body.inbound;
      const xml = original.toString('utf8');
      // The totals answered are the document's own, as written.
      const payable = /<(?:cbc:PayableAmount|ram:DuePayableAmount)[^>]*>\s*(-?[\d.]+)\s*</.exec(xml)![1]!;
      expect(inbound.totals.payable).toBe(payable);
      const earlier = bySha.get(inbound.sha256);
      if (earlier !== undefined) {
        // The same bytes as an earlier example (CII_example2 is CII_business_example_01): that import.
        expect(inbound.id).toBe(earlier);
      } else if (inbound.status === 'rejected') {
        // An example the official rules refuse (a negative test case of the rule sets) is rejected naming them.
        expect(inbound.validation.fatal.length).toBeGreaterThan(0);
      } else {
        expect(['bill_created', 'needs_review']).toContain(inbound.status);
        if (inbound.status === 'needs_review') expect(inbound.review_reasons.length).toBeGreaterThan(0);
        // Close the review, so an example sharing a supplier, number and date with another is no duplicate.
        const closed = await sys.post(PATH, { org_id: '1', userid: 'u1', action: 'reject', id: inbound.id, reason: 'test' });
        expect(closed.statusCode).toBe(200);
      }
      bySha.set(inbound.sha256, inbound.id);

      const noNumber = withoutNumber(xml);
      expect(noNumber).not.toBe(xml);
      const refused = await importFile(noNumber);
      expect(refused.statusCode).toBe(200);
      expect(refused.body.inbound).toMatchObject({ status: 'rejected', invoice_id: null, invoice_number: null });
      expect(refused.body.inbound.validation.fatal.map((f: { rule: string }) => f.rule)).toContain('BR-02');

      const changed = payableChanged(xml);
      expect(changed).not.toBe(xml);
      const wrongTotal = await importFile(changed);
      expect(wrongTotal.statusCode).toBe(200);
      expect(wrongTotal.body.inbound).toMatchObject({ status: 'rejected', invoice_id: null });
      expect(wrongTotal.body.inbound.validation.fatal.map((f: { rule: string }) => f.rule)).toContain('BR-CO-16');
    },
    120_000,
  );

  // Refused by what they are (a DTD, a size past a bound), never by reading them through: the refusal
  // says which bound, and no wall-clock limit stands in for that on a loaded machine.
  describe('XML attacks: a 400 naming content_base64, refused before parsing, nothing stored', () => {
    const refused = async (bytes: Buffer | string, status = 400) => {
      const before = (await sys.post(PATH, { org_id: '1', action: 'list', page_size: 1 })).body.pagination.total_items as number;
      const res = await importFile(bytes);
      expect(res.statusCode).toBe(status);
      if (status === 400) expect(res.body.errors[0].field).toBe('content_base64');
      const after = (await sys.post(PATH, { org_id: '1', action: 'list', page_size: 1 })).body.pagination.total_items as number;
      expect(after).toBe(before);
      return res;
    };

    it('an external entity (XXE)', async () => {
      const res = await refused(
        '<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>&xxe;</ID></Invoice>',
      );
      expect(res.body.message).not.toContain('root:');
      expect(res.body.message).toMatch(/doctype/i);
    });

    it('a billion laughs', async () => {
      const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><Invoice>&lol3;</Invoice>`;
      const res = await refused(lol);
      expect(res.body.message).toMatch(/doctype/i);
    });

    const ofSize = (mb: number) =>
      `<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">${'<Note>x</Note>'.repeat((mb * 1024 * 1024) / 14)}</Invoice>`;

    it("15 MB of XML: past the reader's 10 MB, refused before it is parsed", async () => {
      const res = await refused(ofSize(15));
      expect(res.body.message).toContain('too_large');
    }, 30_000);

    it("50 MB: past the import's body limit, a 413 before any service sees it", async () => {
      const res = await refused(ofSize(50), 413);
      expect(res.body.code).toBe('payload_too_large');
    }, 30_000);
  });
});
