/**
 * `AMQP_URL` names one RabbitMQ node or several, comma-separated (the nodes of one cluster). The bus
 * connects to the first that answers and, when its connection is lost, tries the next one first
 * (round robin), so the processes of a system spread over the nodes as nodes come and go. A comma
 * inside a password is written `%2C`, as any reserved character in a URL's user info.
 */
export function amqpNodes(value: string): string[] {
  const nodes = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (nodes.length === 0) throw new Error('names no RabbitMQ node');
  for (const node of nodes) {
    if (!/^amqps?:\/\/[^\s]+$/.test(node)) throw new Error(`${redactUrl(node)} is not an amqp:// or amqps:// URL`);
  }
  return nodes;
}

/** Whether the value is a valid AMQP_URL (one node or a list). */
export function isAmqpNodeList(value: string): boolean {
  try {
    amqpNodes(value);
    return true;
  } catch {
    return false;
  }
}

/** A node's URL fit for a log line: the password left out. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/**
 * The order to try the nodes in, starting with `first`: each once, so a round ends after every node
 * was asked and the back-off between rounds is the connection's usual one.
 */
export function roundFrom<T>(nodes: readonly T[], first: number): T[] {
  const n = nodes.length;
  return Array.from({ length: n }, (_, i) => nodes[(((first + i) % n) + n) % n] as T);
}
