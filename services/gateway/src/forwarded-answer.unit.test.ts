import { envelope } from '@bo/contracts';
import { forwardedPieces, type ForwardedAnswer } from './forwarded-answer';

const textOf = (answer: ForwardedAnswer) => Buffer.concat(forwardedPieces(answer)).toString();

describe("a service's answer forwarded as it came", () => {
  const body = { message: 'Partner created ✓', partner: { id: 7, partnername: 'Ünïcode "quoted" 😀', credit_limit: 1500.5 } };

  it.each([200, 201, 404])('goes out as the very envelope JSON.stringify writes, status %i, to the byte', (status) => {
    const answer = { statusCode: status, forwarded: Buffer.from(JSON.stringify(body)) };
    const expected = JSON.stringify(envelope(status, body));
    expect(Buffer.concat(forwardedPieces(answer)).equals(Buffer.from(expected))).toBe(true);
    expect(textOf(answer)).toBe(expected);
  });

  it("keeps the service's own spacing: the body is not parsed", () => {
    const answer = { statusCode: 200, forwarded: Buffer.from('{ "a" : [1, 2] }') };
    expect(textOf(answer).endsWith(',"body":{ "a" : [1, 2] }}')).toBe(true);
  });
});
