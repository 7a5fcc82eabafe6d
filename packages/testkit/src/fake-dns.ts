import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';

/** How the fake nameserver answers a name: its addresses, "no such name", or never. */
export type DnsAnswer = string[] | 'nxdomain' | 'silent';

const A = 1;
const AAAA = 28;

/**
 * A nameserver on 127.0.0.1 (UDP) for tests, given to dns.Resolver#setServers (WEBHOOKS_DNS_SERVERS):
 * it answers each name as `answers` says, NXDOMAIN for a name it does not know, and counts the
 * queries it got. `silent` (or `silence()`) receives queries and never answers, as a nameserver that
 * hangs does.
 */
export class FakeDns {
  readonly queries: string[] = [];
  private socket?: Socket;
  private silent = false;

  constructor(private readonly answers: Record<string, DnsAnswer> = {}) {}

  /** How `name` is answered from now on. */
  answer(name: string, answer: DnsAnswer): void {
    this.answers[name.toLowerCase()] = answer;
  }

  async start(): Promise<this> {
    const socket = createSocket('udp4');
    socket.on('message', (msg, from) => this.respond(msg, from));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.socket = socket;
    return this;
  }

  /** The server as WEBHOOKS_DNS_SERVERS takes it. */
  get server(): string {
    return `127.0.0.1:${this.socket?.address().port}`;
  }

  /** Receives every query from now on and answers none. */
  silence(): void {
    this.silent = true;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.socket ? this.socket.close(() => resolve()) : resolve()));
  }

  private respond(query: Buffer, from: RemoteInfo): void {
    // The question: labels from byte 12 to a zero length, then its type and class.
    const labels: string[] = [];
    let at = 12;
    while (at < query.length && query[at] !== 0) {
      const length = query[at] as number;
      labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
      at += length + 1;
    }
    const questionEnd = at + 5;
    const type = query.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    this.queries.push(name);
    const answer = this.answers[name] ?? 'nxdomain';
    if (this.silent || answer === 'silent') return;
    const records = answer === 'nxdomain' ? [] : answer.filter((a) => (type === A ? isIPv4(a) : type === AAAA && !isIPv4(a)));
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    // A response, recursion desired and available; NXDOMAIN (3) or no error.
    header.writeUInt16BE(0x8180 | (answer === 'nxdomain' ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const rrs = records.map((address) => {
      const data = isIPv4(address) ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(type, 2);
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
    this.socket?.send(Buffer.concat([header, query.subarray(12, questionEnd), ...rrs]), from.port, from.address);
  }
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array<string>(address.includes('::') ? missing : 0).fill('0'), ...groups(tail)];
  const bytes = Buffer.alloc(16);
  all.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2));
  return bytes;
}
