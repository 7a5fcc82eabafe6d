import { amqpNodes, isAmqpNodeList, redactUrl, roundFrom } from './nodes';

describe('AMQP_URL: one node or a list', () => {
  it('takes one URL as one node', () => {
    expect(amqpNodes('amqp://guest:guest@127.0.0.1:5672')).toEqual(['amqp://guest:guest@127.0.0.1:5672']);
  });

  it('takes a comma-separated list in order, spaces and empty entries ignored', () => {
    expect(amqpNodes(' amqp://u:p@h1:5682/vh , amqps://u:p@h2:5683,,amqp://h3 ')).toEqual([
      'amqp://u:p@h1:5682/vh',
      'amqps://u:p@h2:5683',
      'amqp://h3',
    ]);
  });

  it('keeps a percent-encoded comma inside a password', () => {
    expect(amqpNodes('amqp://u:a%2Cb@h1,amqp://u:a%2Cb@h2')).toEqual(['amqp://u:a%2Cb@h1', 'amqp://u:a%2Cb@h2']);
  });

  it('refuses a list naming no node, or an entry that is not an amqp URL, without printing its password', () => {
    expect(() => amqpNodes(' , ')).toThrow(/no RabbitMQ node/);
    expect(() => amqpNodes('amqp://h1,http://u:secret@h2')).toThrow(/http:\/\/u:\*\*\*@h2 is not an amqp/);
    expect(isAmqpNodeList('amqp://h1,amqp://h2')).toBe(true);
    expect(isAmqpNodeList('amqp://h1,h2')).toBe(false);
  });

  it('redacts the password of a node for logs', () => {
    expect(redactUrl('amqp://guest:guest@127.0.0.1:5682')).toBe('amqp://guest:***@127.0.0.1:5682');
    expect(redactUrl('amqp://127.0.0.1:5682')).toBe('amqp://127.0.0.1:5682');
  });

  it('tries every node once per round, starting from the one given (round robin)', () => {
    expect(roundFrom(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(roundFrom(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a']);
    expect(roundFrom(['a', 'b', 'c'], 5)).toEqual(['c', 'a', 'b']);
    expect(roundFrom(['a'], 3)).toEqual(['a']);
  });
});
