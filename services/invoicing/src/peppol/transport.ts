import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Sending a Peppol document to its receiver goes through an access point; which one is a deployment
 * choice, so the system talks to it through this adapter (docs/documents.md "Peppol"). A document is
 * sent once per invoice and version: sending the same again (a redelivered message, a retry) answers
 * the transmission already made and sends nothing.
 */
export interface PeppolDocument {
  org_id: number;
  invoice_id: number;
  /** The invoice's version the document was sent at: with the invoice, the natural key of a transmission. */
  version: number;
  number: string;
  /** The Peppol participant ids (`<EAS scheme>:<identifier>`) of the sender and the receiver. */
  sender: string;
  receiver: string;
  /** UBL Invoice or CreditNote: the Peppol document as issued (format `peppol`), byte for byte. */
  document_type: 'invoice' | 'credit_note';
  content: Buffer;
}

export interface PeppolTransmission {
  /** The transport's id of the transmission, the same for every send of one invoice version. */
  transmission_id: string;
  /** `queued`: handed over, the access point sends it; `sent`, `failed`: as an access point reports them. */
  status: 'queued' | 'sent' | 'failed';
  sha256: string;
  /** When it was first handed over (ISO 8601). */
  at: string;
}

export interface PeppolTransport {
  send(document: PeppolDocument): Promise<PeppolTransmission>;
}

/** A document that differs from what was already sent for the same invoice version: never overwritten. */
export class PeppolTransmissionConflict extends Error {
  constructor(readonly transmission_id: string) {
    super(`invoice version ${transmission_id} was already handed over with other content; it is never overwritten`);
    this.name = 'PeppolTransmissionConflict';
  }
}

/** The envelope written beside each document: what an access point's pick-up needs to route it. */
export interface FileDropEnvelope extends PeppolTransmission {
  org_id: number;
  invoice_id: number;
  version: number;
  number: string;
  sender: string;
  receiver: string;
  document_type: PeppolDocument['document_type'];
  /** The document's file name in the same directory. */
  document: string;
  customization_id: string;
  profile_id: string;
}

const CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** Writes `bytes` as `target` whole or not at all: a temporary file beside it, flushed, then linked, which fails if `target` exists. */
function writeOnce(target: string, bytes: Buffer): boolean {
  const partial = `${target}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(partial, 'wx');
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(partial, target);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(partial, { force: true });
  }
}

function readIfThere(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The file-drop transport: each document and its JSON envelope are written into `directory`, where
 * an access point's connector picks them up (`<org>-<invoice>-v<version>.xml` and `.json`). Each
 * file appears whole or not at all (written beside, then linked into place), the document before its
 * envelope, so a reader that takes the envelopes finds complete transmissions only. The names are
 * the natural key: a second send of one invoice version answers the first transmission; with other
 * bytes it is a PeppolTransmissionConflict, and nothing is overwritten.
 */
export class FileDropTransport implements PeppolTransport {
  constructor(
    private readonly directory: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  send(doc: PeppolDocument): Promise<PeppolTransmission> {
    return Promise.resolve().then(() => this.drop(doc));
  }

  private drop(doc: PeppolDocument): PeppolTransmission {
    mkdirSync(this.directory, { recursive: true });
    const stem = `${doc.org_id}-${doc.invoice_id}-v${doc.version}`;
    const transmission_id = `file-drop:${stem}`;
    const sha256 = createHash('sha256').update(doc.content).digest('hex');
    const documentPath = join(this.directory, `${stem}.xml`);
    const envelopePath = join(this.directory, `${stem}.json`);
    if (!writeOnce(documentPath, doc.content) && !readIfThere(documentPath)!.equals(doc.content))
      throw new PeppolTransmissionConflict(transmission_id);
    const envelope: FileDropEnvelope = {
      transmission_id,
      status: 'queued',
      sha256,
      at: this.now().toISOString(),
      org_id: doc.org_id,
      invoice_id: doc.invoice_id,
      version: doc.version,
      number: doc.number,
      sender: doc.sender,
      receiver: doc.receiver,
      document_type: doc.document_type,
      document: `${stem}.xml`,
      customization_id: CUSTOMIZATION_ID,
      profile_id: PROFILE_ID,
    };
    if (writeOnce(envelopePath, Buffer.from(`${JSON.stringify(envelope, null, 2)}\n`))) return pick(envelope);
    const kept = JSON.parse(readIfThere(envelopePath)!.toString('utf8')) as FileDropEnvelope;
    if (kept.sha256 !== sha256) throw new PeppolTransmissionConflict(transmission_id);
    return pick(kept);
  }
}

const pick = (e: PeppolTransmission): PeppolTransmission => ({
  transmission_id: e.transmission_id,
  status: e.status,
  sha256: e.sha256,
  at: e.at,
});
