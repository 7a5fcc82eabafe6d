import type { RpcReply } from '@bo/contracts';
import { parseRawReply, toRawReply } from './types';

describe('raw replies', () => {
  it('carry a success body serialized and give it back unchanged', () => {
    const reply: RpcReply = { ok: true, status: 200, body: { message: 'ok', items: [1, 2.5, 'x'] } };
    const raw = toRawReply(reply);
    expect(raw.ok).toBe(true);
    expect(raw.status).toBe(200);
    expect(raw.content.toString()).toBe('{"message":"ok","items":[1,2.5,"x"]}');
    expect(parseRawReply(raw)).toEqual(reply);
  });

  it('carry an error without its status inside the json', () => {
    const reply: RpcReply = {
      ok: false,
      status: 400,
      code: 'not_found',
      message: 'Partner 9 not found',
      errors: [{ field: 'partner_id', message: 'x' }],
    };
    const raw = toRawReply(reply);
    expect(JSON.parse(raw.content.toString())).toEqual({
      code: 'not_found',
      message: 'Partner 9 not found',
      errors: [{ field: 'partner_id', message: 'x' }],
    });
    expect(parseRawReply(raw)).toEqual(reply);
  });
});
