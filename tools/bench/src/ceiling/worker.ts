import { connectionUrl, exitWith, loadAmqplib, ready, receiveConfig } from './shared';

/**
 * The ceiling's service: consumes its queue with the real services' prefetch and manual acks, and
 * answers each request on its reply-to address with the prepared body of its routing key (status in
 * headers, body alone as content, as the real RPC server does), then acks. No handler, no database.
 */
async function main(): Promise<void> {
  const config = await receiveConfig();
  const amqp = loadAmqplib();
  const replies = new Map(config.routes.map((r) => [r.routingKey, Buffer.from(r.reply)]));
  const conn = await amqp.connect(connectionUrl(config.amqpUrl), {
    noDelay: true,
    clientProperties: { connection_name: `${config.queue}.worker` },
  });
  const ch = await conn.createChannel();
  await ch.assertExchange(config.exchange, 'direct', { durable: true });
  await ch.assertQueue(config.queue, { durable: true });
  for (const r of config.routes) await ch.bindQueue(config.queue, config.exchange, r.routingKey);
  await ch.prefetch(config.prefetch);
  await ch.consume(
    config.queue,
    (msg) => {
      if (!msg) return;
      const reply = replies.get(msg.fields.routingKey);
      const { replyTo, correlationId } = msg.properties as { replyTo?: string; correlationId?: string };
      if (replyTo) {
        ch.sendToQueue(replyTo, reply ?? Buffer.from('{"message":"unknown route"}'), {
          correlationId,
          contentType: 'application/json',
          headers: reply ? { 'x-ok': true, 'x-status': 200 } : { 'x-ok': false, 'x-status': 500 },
        });
      }
      ch.ack(msg);
    },
    { noAck: false },
  );
  exitWith(() => conn.close().catch(() => undefined));
  ready();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
