import type * as amqp from 'amqplib';
import { coalesceWrites } from './coalesced-writes';

/** A stand-in for amqplib's connection as far as coalesceWrites reaches into it. */
function fakeConnection(pass: () => void) {
  const events: string[] = [];
  const muxer = {
    out: { cork: () => events.push('cork'), uncork: () => events.push('uncork') },
    _readIncoming() {
      events.push('pass');
      pass();
    },
  };
  return { model: { connection: { muxer } } as unknown as amqp.ChannelModel, muxer, events };
}

describe('coalesceWrites', () => {
  it('corks the socket for each pass of the muxer and uncorks it after, even when the pass throws', () => {
    let fail = false;
    const { model, muxer, events } = fakeConnection(() => {
      if (fail) throw new Error('frame encoding failed');
    });
    expect(coalesceWrites(model)).toBe(true);
    muxer._readIncoming();
    fail = true;
    expect(() => muxer._readIncoming()).toThrow('frame encoding failed');
    expect(events).toEqual(['cork', 'pass', 'uncork', 'cork', 'pass', 'uncork']);
  });

  it('leaves a connection without the expected internals as it is', () => {
    expect(coalesceWrites({} as amqp.ChannelModel)).toBe(false);
    expect(coalesceWrites({ connection: { muxer: { _readIncoming: () => undefined } } } as unknown as amqp.ChannelModel)).toBe(false);
  });
});
