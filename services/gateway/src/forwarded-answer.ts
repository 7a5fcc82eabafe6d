import { corsHeaders, type Envelope } from '@bo/contracts';

/**
 * A service's answer the gateway forwards as it came: the body's UTF-8 JSON bytes, wrapped into the
 * envelope only as they go out. Decoding the body into a string and encoding the envelope around it
 * again made three 11 KB copies for a list of 25 partners: the gateway's largest allocations, and
 * the young-generation collections they cost (measured with `npm run bench`).
 */
export interface ForwardedAnswer {
  statusCode: number;
  forwarded: Buffer;
}

const CORS_JSON = JSON.stringify(corsHeaders);
const CLOSE = Buffer.from('}');
const heads = new Map<number, Buffer>();

/** The envelope's text up to its body, the same for every answer of one status. */
function headOf(statusCode: number): Buffer {
  let head = heads.get(statusCode);
  if (head === undefined) {
    head = Buffer.from(`{"statusCode":${statusCode},"headers":${CORS_JSON},"body":`);
    heads.set(statusCode, head);
  }
  return head;
}

/**
 * The envelope's bytes in three pieces, written to the client as they are (one write: node corks
 * the socket). Joining them into one buffer would allocate 11 KB outside V8's heap per list, and
 * V8 answers that much external memory with full collections: the gateway's went from 3 to 7–11 in
 * 10 s of listing when it did.
 */
export function forwardedPieces(answer: ForwardedAnswer): readonly Buffer[] {
  return [headOf(answer.statusCode), answer.forwarded, CLOSE];
}

/** What an operation is answered with: an envelope, or a service's answer forwarded as it came. */
export type GatewayAnswer = Envelope | ForwardedAnswer;
