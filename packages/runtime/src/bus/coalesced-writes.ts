import type * as amqp from 'amqplib';

/**
 * amqplib's Mux, the part of a connection that moves each channel's outgoing frames to the socket,
 * as far as this module touches it.
 */
interface Mux {
  out: { cork(): void; uncork(): void };
  _readIncoming(): void;
}

/**
 * Makes a connection write everything its channels queued in one event-loop turn with one system
 * call. amqplib's muxer runs once per turn (setImmediate) and writes each queued frame set to the
 * socket on its own: a service under load answered RPCs, acknowledged deliveries and published
 * events in about three writes per request, and the broker read each one separately. With the
 * socket corked for the muxer's pass, they leave as one writev, in the same order.
 *
 * Reaches into amqplib's internals (`connection.muxer`, present since amqplib 0.5); if they are not
 * there, the connection is left as it is.
 */
export function coalesceWrites(model: amqp.ChannelModel): boolean {
  const mux = (model as unknown as { connection?: { muxer?: Partial<Mux> } }).connection?.muxer;
  if (!mux || typeof mux._readIncoming !== 'function' || typeof mux.out?.cork !== 'function') return false;
  const passOnce = mux._readIncoming;
  const out = mux.out;
  mux._readIncoming = function coalesced(this: Mux) {
    out.cork();
    try {
      passOnce.call(this);
    } finally {
      out.uncork();
    }
  };
  return true;
}
