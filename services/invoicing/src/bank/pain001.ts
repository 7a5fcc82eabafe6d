import { dec, isValidCreditorReference } from '@bo/kernel';
import { escapeXml } from './xml';

/**
 * An ISO 20022 pain.001.001.09 credit-transfer initiation in the EPC's SEPA profile (EPC132-08):
 * one payment instruction (one debtor account, one execution date), one transaction per bill, EUR,
 * each booked on its own (`BtchBookg` false: the statement states each transfer's end-to-end id),
 * IBAN only, amounts with two decimals. The remittance is a structured creditor reference (SCOR)
 * when the bill carries an ISO 11649 `RF…` reference, else the reference or number as free text.
 */
export interface CreditTransfer {
  end_to_end_id: string;
  amount: string;
  creditor_name: string;
  creditor_iban: string;
  creditor_bic: string | null;
  /** An ISO 11649 creditor reference, or the bill's own reference / number. */
  remittance: string;
}

export interface PaymentFile {
  message_id: string;
  created_at: string;
  execution_date: string;
  debtor_name: string;
  debtor_iban: string;
  debtor_bic: string | null;
  transfers: CreditTransfer[];
}

/** The EPC's restricted Latin character set; anything else becomes a space or its nearest ASCII letter. */
export function sepaText(value: string, max: number): string {
  const ascii = value.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  const kept = ascii
    .replace(/[^A-Za-z0-9/?:().,'+ -]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return kept.slice(0, max) || '-';
}

function agent(bic: string | null): string {
  return bic ? `<FinInstnId><BICFI>${escapeXml(bic)}</BICFI></FinInstnId>` : '<FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId>';
}

export function renderPain001(file: PaymentFile): string {
  const total = file.transfers.reduce((s, t) => s.plus(dec(t.amount)), dec(0)).toFixed(2);
  const count = String(file.transfers.length);
  const transfers = file.transfers.map((t) => {
    const remittance = isValidCreditorReference(t.remittance)
      ? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${escapeXml(t.remittance.replace(/\s+/g, '').toUpperCase())}</Ref></CdtrRefInf></Strd>`
      : `<Ustrd>${escapeXml(sepaText(t.remittance, 140))}</Ustrd>`;
    return [
      '<CdtTrfTxInf>',
      `<PmtId><EndToEndId>${escapeXml(sepaText(t.end_to_end_id, 35))}</EndToEndId></PmtId>`,
      `<Amt><InstdAmt Ccy="EUR">${dec(t.amount).toFixed(2)}</InstdAmt></Amt>`,
      t.creditor_bic ? `<CdtrAgt><FinInstnId><BICFI>${escapeXml(t.creditor_bic)}</BICFI></FinInstnId></CdtrAgt>` : '',
      `<Cdtr><Nm>${escapeXml(sepaText(t.creditor_name, 70))}</Nm></Cdtr>`,
      `<CdtrAcct><Id><IBAN>${escapeXml(t.creditor_iban)}</IBAN></Id></CdtrAcct>`,
      `<RmtInf>${remittance}</RmtInf>`,
      '</CdtTrfTxInf>',
    ].join('');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">',
    '<CstmrCdtTrfInitn>',
    `<GrpHdr><MsgId>${escapeXml(sepaText(file.message_id, 35))}</MsgId><CreDtTm>${file.created_at}</CreDtTm><NbOfTxs>${count}</NbOfTxs><CtrlSum>${total}</CtrlSum><InitgPty><Nm>${escapeXml(sepaText(file.debtor_name, 70))}</Nm></InitgPty></GrpHdr>`,
    '<PmtInf>',
    `<PmtInfId>${escapeXml(sepaText(file.message_id, 35))}</PmtInfId><PmtMtd>TRF</PmtMtd><BtchBookg>false</BtchBookg><NbOfTxs>${count}</NbOfTxs><CtrlSum>${total}</CtrlSum>`,
    '<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>',
    `<ReqdExctnDt><Dt>${file.execution_date}</Dt></ReqdExctnDt>`,
    `<Dbtr><Nm>${escapeXml(sepaText(file.debtor_name, 70))}</Nm></Dbtr>`,
    `<DbtrAcct><Id><IBAN>${escapeXml(file.debtor_iban)}</IBAN></Id></DbtrAcct>`,
    `<DbtrAgt>${agent(file.debtor_bic)}</DbtrAgt>`,
    '<ChrgBr>SLEV</ChrgBr>',
    ...transfers,
    '</PmtInf>',
    '</CstmrCdtTrfInitn>',
    '</Document>',
    '',
  ].join('\n');
}
