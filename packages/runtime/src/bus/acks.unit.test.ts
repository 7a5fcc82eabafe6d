import type * as amqp from 'amqplib';
import { ChannelAcks } from './acks';

const message = (deliveryTag: number) => ({ fields: { deliveryTag } }) as amqp.Message;

/** Records what a channel was asked to ack, as `tag` or `tag+` for a multiple ack, and nacks as `-tag`. */
function recordingChannel() {
  const frames: string[] = [];
  return {
    frames,
    ch: {
      ack: (m: amqp.Message, allUpTo?: boolean) => void frames.push(`${m.fields.deliveryTag}${allUpTo ? '+' : ''}`),
      nack: (m: amqp.Message) => void frames.push(`-${m.fields.deliveryTag}`),
    },
  };
}

describe('coalesced acks of a consumer channel', () => {
  it('acks what settled together with one multiple ack', async () => {
    const { ch, frames } = recordingChannel();
    const acks = new ChannelAcks(ch);
    const msgs = [1, 2, 3].map(message);
    msgs.forEach((m) => acks.received(m));
    await Promise.all(msgs.map((m) => acks.ack(m)));
    expect(frames).toEqual(['3+']);
  });

  it('never covers a message still being handled: those above it are acked one by one', async () => {
    const { ch, frames } = recordingChannel();
    const acks = new ChannelAcks(ch);
    const msgs = [1, 2, 3, 4, 5].map(message);
    msgs.forEach((m) => acks.received(m));
    await Promise.all([acks.ack(msgs[0]!), acks.ack(msgs[1]!), acks.ack(msgs[3]!), acks.ack(msgs[4]!)]);
    expect(frames).toEqual(['4', '5', '2+']);
    await acks.ack(msgs[2]!);
    expect(frames).toEqual(['4', '5', '2+', '3+']);
  });

  it('gives a nacked message back at once, and a later multiple ack does not need it', async () => {
    const { ch, frames } = recordingChannel();
    const acks = new ChannelAcks(ch);
    const msgs = [1, 2, 3].map(message);
    msgs.forEach((m) => acks.received(m));
    acks.nack(msgs[1]!);
    expect(frames).toEqual(['-2']);
    await Promise.all([acks.ack(msgs[0]!), acks.ack(msgs[2]!)]);
    expect(frames).toEqual(['-2', '3+']);
  });
});
