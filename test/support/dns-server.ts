import { createSocket, type RemoteInfo } from 'node:dgram';
import { once } from 'node:events';
import { isIPv4 } from 'node:net';

/** What a stand-in DNS server answers for a name: its addresses, or silence (`'never'`). */
export type DnsAnswer = readonly string[] | 'never';

/**
 * A DNS server on loopback UDP that answers A and AAAA queries from a table: the name's addresses
 * of that family (none: an empty answer), NXDOMAIN for a name not in the table, and nothing at all
 * for a name whose answer is `'never'`. Records every name asked.
 */
export async function startDnsServer(table: Readonly<Record<string, DnsAnswer>>) {
  const asked: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (query: Buffer, from: RemoteInfo) => {
    const labels: string[] = [];
    let at = 12;
    while (query[at]! > 0) {
      labels.push(query.toString('latin1', at + 1, at + 1 + query[at]!));
      at += 1 + query[at]!;
    }
    const questionEnd = at + 5; // the root label, then type and class
    const type = query.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    asked.push(name);
    const entry = table[name];
    if (entry === 'never') return;
    const wanted = (entry ?? []).filter((address) => (type === 1 ? isIPv4(address) : !isIPv4(address)));
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the id
    header.writeUInt16BE(entry === undefined ? 0x8183 : 0x8180, 2); // a response, recursion; NXDOMAIN or not
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(type === 1 || type === 28 ? wanted.length : 0, 6);
    const answers = wanted.map((address) => {
      const data = type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(
      Buffer.concat([header, query.subarray(12, questionEnd), ...answers]),
      from.port,
      from.address,
    );
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    server: `127.0.0.1:${socket.address().port}`,
    asked,
    close: () => socket.close(),
  };
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array(address.includes('::') ? missing : 0).fill('0'), ...groups(tail)];
  const bytes = Buffer.alloc(16);
  for (const [i, group] of all.entries()) bytes.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return bytes;
}
