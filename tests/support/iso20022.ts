import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';

/** The ISO 20022 schemas the bank tests check their files against (tests/iso20022, copied with their source named). */
export type Iso20022Schema = 'camt.053.001.08' | 'pain.001.001.09';

const schemaDir = join(__dirname, '..', 'iso20022');

/** The schema errors of an ISO 20022 document, '' when it is valid. */
export async function iso20022Failures(schema: Iso20022Schema, xml: string): Promise<string> {
  const result = await validateXML({
    xml: [{ fileName: 'document.xml', contents: xml }],
    schema: [{ fileName: `${schema}.xsd`, contents: readFileSync(join(schemaDir, `${schema}.xsd`), 'utf8') }],
  });
  if (result.valid) return '';
  const errors = result.errors.map((e) => e.rawMessage.trim()).filter((m) => m && m !== 'document.xml fails to validate');
  return errors.join('\n') || result.rawOutput.trim() || 'invalid';
}
